"""Warm local sandboxes: a pre-started harness/runner pair per member, one job each."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from grader.sandboxes import jail, resources
from grader.sandboxes.base import Job, kill_on_cancel
from grader.sandboxes.contract import MAX_RESULTS_BYTES, READY, WARM_ENTRY, job_order
from grader.sandboxes.lane import LOW_PRIORITY_LIMIT_S, REFILL_NICE, can_raise_back, set_group_priority
from grader.sandboxes.outcome import Outcome
from grader.sandboxes.pool import WarmPool, get_pool, max_idle_s
from grader.sandboxes.run_lane import run_pool_size
from grader.sandboxes.zygote_client import same_grader_path, zygote, zygote_supported

LOG_TAIL_BYTES = 2000
READY_TIMEOUT_S = 180  # torch and pytest imports on a very busy machine


class LocalMember:
    """`python -m grader.sandboxes.warm_entry` in its own session and scratch folder.

    It imports torch and pytest and starts its learner runner at once, then blocks reading
    one job line from stdin; closing stdin (or this process dying) ends it.
    """

    def __init__(self, nice: int = 0, from_zygote: bool = False) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="warm-"))
        self.log = open(self.root / "harness.log", "w+b")  # noqa: SIM115 -- lives as long as we do
        self.process: Any
        # The job's jail (grader/sandboxes/jail.py), chosen here: we outlive the harness, so
        # discard() can still end whatever the job left if the harness itself was killed.
        self.jail = jail.new_job() if jail.enabled() else None
        jailed = ["--jail", self.jail.to_arg()] if self.jail is not None else []
        # The zygote this sandbox was forked from: it dies with it (PR_SET_PDEATHSIG), a moment
        # after the zygote ends; alive() asks both, so a pool never hands out one in that moment.
        self.source: Any = None
        if from_zygote:  # a fork of a process that has imported everything (zygote.py)
            self.source = zygote()
            child = self.source.spawn(nice=nice, max_idle_s=max_idle_s(), log=self.log,
                                      jail=self.jail.to_arg() if self.jail is not None else None)
            with _live_lock:
                self.process = child
                _live.add(self)
            return
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1",
                   PYTORCH_NVML_BASED_CUDA_CHECK="1", PYTHONPATH=same_grader_path())
        with _live_lock:
            self.process = subprocess.Popen(  # noqa: S603 -- our own interpreter and module
                [sys.executable, "-m", WARM_ENTRY,
                 "--max-idle-s", str(max_idle_s()), "--nice", str(nice), *jailed],
                cwd=self.root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self.log, start_new_session=True,
            )
            _live.add(self)

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> None:
        """Block until torch, pytest and the runner are up; RuntimeError if they never are."""
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], min(timeout, LOW_PRIORITY_LIMIT_S))
        if not ready and timeout > LOW_PRIORITY_LIMIT_S:
            self._raise_priority()  # a refill that yields must still finish (lane.py)
            ready, _, _ = select.select([self.process.stdout], [], [], timeout - LOW_PRIORITY_LIMIT_S)
        line = self.process.stdout.readline() if ready else b""
        self.process.stdout.close()
        if line.strip() != READY.encode():
            self.discard()
            raise RuntimeError(f"warm harness did not get ready: {line[:200]!r}")

    def _raise_priority(self) -> None:
        """The harness and its runner back to this process's priority (if we may)."""
        base = os.getpriority(os.PRIO_PROCESS, 0)
        if self.process.poll() is None and can_raise_back(base):
            set_group_priority([self.process.pid, *_children(self.process.pid)], base)

    @classmethod
    def spawn(cls) -> LocalMember:
        """A member that is warm: what the pool keeps. It starts up at a lower priority."""
        member = cls(nice=REFILL_NICE, from_zygote=use_zygote())
        member.wait_ready()
        return member

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        """Running, and (forked from a zygote) its zygote still running: once the zygote has
        ended, the kernel is killing this sandbox (seen: a Run written to such a sandbox under
        load ended with no results file)."""
        return self.process.poll() is None and (self.source is None or self.source.alive())

    def run(self, job: Job, mode: str, *, timeout: float) -> Outcome:
        """Hand over the job, wait for this sandbox to finish, read what it wrote."""
        submission = self.root / "submission.py"
        submission.write_text(job.code, encoding="utf-8")
        results = self.root / "out" / "results.json"
        line = json.dumps(job_order(exercise=str(job.exercise.path), submission=str(submission),
                                    results=str(results), lang=job.lang, mode=mode))
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(line.encode("utf-8") + b"\n")
            self.process.stdin.close()
        except (BrokenPipeError, OSError) as exc:
            return Outcome(problem=f"the warm harness was gone: {exc}", log_tail=self._tail())
        with kill_on_cancel(job.cancel, self._signal_kill) as stopped:
            try:
                code = self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._kill()
                return Outcome(timed_out=True)
        if stopped.is_set():
            return Outcome(stopped=True, exit_code=code)
        try:
            if results.is_symlink() or results.stat().st_size > MAX_RESULTS_BYTES:
                raise ValueError("results file is not a plain file of sane size")
            document = json.loads(results.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return Outcome(problem=str(exc), exit_code=code, log_tail=self._tail())
        return Outcome(document=document, exit_code=code)

    def discard(self) -> None:
        """End the harness (its runner follows: its channel closes) and remove the folder."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            try:
                self.process.stdin.close()  # an idle harness exits on EOF by itself
            except OSError:
                pass
        self._kill()
        self.log.close()
        shutil.rmtree(self.root, ignore_errors=True)
        if self.jail is not None:
            # The harness ends its job's jail before it exits; its folder still there means
            # the harness died (killed at the wall clock, say) before it could.
            if Path(self.jail.directory).exists():
                jail.end(self.jail)
            jail.release(self.jail)
        with _live_lock:
            _live.discard(self)

    def _signal_kill(self) -> None:
        """SIGKILL the harness's session and its learner runner's; a no-op once the harness is reaped.

        The runner runs in a session of its own (grader.learner), so killing the harness's group
        alone would orphan it, and learner code asleep in `time.sleep` never notices its channel
        closing: its session is found (a child of the harness) and killed first.
        """
        if self.process.poll() is not None:
            return  # its pid may belong to someone else by now
        for group in [*_children(self.process.pid), self.process.pid]:
            try:
                os.killpg(group, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass  # not a group leader, or gone already

    def _kill(self) -> None:
        self._signal_kill()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def _tail(self) -> str:
        try:
            self.log.flush()
            self.log.seek(0, os.SEEK_END)
            self.log.seek(max(0, self.log.tell() - LOG_TAIL_BYTES))
            return self.log.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""


def _children(pid: int) -> list[int]:
    """Pids whose parent is `pid` (Linux /proc; nothing where there is none)."""
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended while we looked
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses; split after the last ")".
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1] == str(pid):
            found.append(int(entry.name))
    return found


_live: set[LocalMember] = set()  # every member of this process not yet discarded
_live_lock = threading.Lock()


def use_zygote() -> bool:
    """GRADER_POOL_ZYGOTE (default 1): refills are forks of the zygote; 0: fresh interpreters."""
    return os.environ.get("GRADER_POOL_ZYGOTE", "1") != "0" and zygote_supported()


def discard_all() -> None:
    """End every warm local sandbox of this process, idle, starting or busy (at exit, after the
    pools stopped refilling and the zygote ended: grader.sandboxes.resources closes in that order)."""
    with _live_lock:
        members = list(_live)
    for member in members:
        member.discard()


def _forget_after_fork() -> None:
    """A forked child must never end its parent's sandboxes."""
    global _live_lock
    _live_lock = threading.Lock()
    _live.clear()


resources.register("local warm sandboxes", forget=_forget_after_fork, close=discard_all)


def local_pool() -> WarmPool:
    """This process's pool of warm local sandboxes for gradings (GRADER_POOL_SIZE, default 1)."""
    return get_pool("local", LocalMember.spawn)


def local_run_pool() -> WarmPool:
    """This process's pool of warm local sandboxes for Runs (GRADER_RUN_POOL_SIZE, default 1)."""
    return get_pool("local-run", LocalMember.spawn, run_pool_size())
