"""CPU priority for work no learner waits for: warm-pool refills and the background lane."""

# A 2-core grader serves a class only if the CPU goes to the gradings learners wait for.
# Two kinds of work are not that, and both yield:
# - refills: a warm sandbox starting up (imports) runs at REFILL_NICE and is raised back to
#   its normal priority when a job is handed to it (local: warm_entry does it itself, which
#   needs permission to lower a nice value: root, CAP_SYS_NICE or RLIMIT_NICE; without it the
#   refill is not lowered at all, since a job must never run at a lowered priority.
#   Docker: the container's cpu.shares, LOW_SHARES until taken, raised by the engine);
# - the background lane (Job.background: an instructor's "check every folder"): one grading
#   at a time per process, never from a warm pool, at the lowest priority for its whole life
#   (docker: below the refills). One that timed out is graded once more at a grading's
#   priority, so a busy host never makes an instructor's check report a timeout the folder
#   does not have (seen: a solution "did not finish within 30 seconds" at load 10).

from __future__ import annotations

import os
import resource
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from grader.sandboxes import resources

# Low, not lowest: at nice 19 / cpu.shares 2 (weight 15 or 2 against 1024) a refill or an
# instructor's grading made almost no progress on a host loaded 10x over (load average 20-26
# on 2 cores in CI-like runs): warm containers missed their 180 s start, one could not even be
# killed in time ("did not receive an exit event") and one validation of two folders took 225 s.
# Weight 110 (nice 10) or 128 shares still leaves a grading about 90 % of a core it competes for.
REFILL_NICE = 10
BACKGROUND_NICE = 10
LOW_SHARES = 128  # cpu.shares of a warm container until taken (or a job waits for it)
# Background containers weigh less than refills: a refill is a learner's next warm container,
# and at equal weight an instructor's check halved the refills' CPU on a busy host, the pool
# ran dry and learners started cold behind it (issue 22's docker class: p90 154 s). CPU that
# nothing else wants still all goes to it (cpu.shares only divides contended CPU).
BACKGROUND_SHARES = 64
NORMAL_SHARES = 1024  # docker's default
# A refill still not ready after this long is raised to normal priority: on an idle 2-core
# host a warm start takes well under a second (local, a fork) or a few seconds (docker);
# one that takes longer is competing with far more than a class's gradings, and at a low
# weight it might never finish (two docker warm-pool tests, which wait 300 s for a fill,
# failed at load 25 without this limit and passed with it).
LOW_PRIORITY_LIMIT_S = 15.0

_background = threading.BoundedSemaphore(1)


def _forget_background() -> None:
    # A child forked while a thread of the parent held the slot would find it taken forever.
    global _background
    _background = threading.BoundedSemaphore(1)


resources.register("background lane slot", forget=_forget_background)


@contextmanager
def background_slot(background: bool) -> Iterator[None]:
    """Hold the process's one background slot for a background job; nothing for a learner's."""
    if not background:
        yield
        return
    with _background:
        yield


def can_raise_back(base_nice: int | None = None) -> bool:
    """Whether this process may go back to base_nice after lowering its priority."""
    if os.geteuid() == 0:
        return True
    base = os.getpriority(os.PRIO_PROCESS, 0) if base_nice is None else base_nice
    soft, _hard = resource.getrlimit(resource.RLIMIT_NICE)
    # The kernel lets a process set nice n when 20 - n <= RLIMIT_NICE (or it has CAP_SYS_NICE,
    # which we do not probe for: without root, an operator grants RLIMIT_NICE).
    return soft == resource.RLIM_INFINITY or 20 - base <= soft


def lowered(command: list[str], nice: int = BACKGROUND_NICE) -> list[str]:
    """The command run at a lower priority for its whole life (the `nice` program, if present)."""
    program = shutil.which("nice")
    return [program, "-n", str(nice), *command] if program else command


def set_group_priority(groups: list[int], nice: int) -> None:
    """Every thread of these process groups to `nice` (PRIO_PGRP reaches all their threads)."""
    for group in groups:
        try:
            os.setpriority(os.PRIO_PGRP, group, nice)
        except (ProcessLookupError, PermissionError):
            pass  # ended meanwhile, or (docker) another uid's: its container's shares cover it
