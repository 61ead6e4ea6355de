"""Starts the learner runner by forking the harness before any exercise is loaded: torch is imported once per job."""

# Why a fork is safe here (docs/sandbox.md, "The runner is forked"):
# - The harness forks before it has read the exercise: no test, reference solution or answer
#   key has ever been in its memory, so the child's copy holds torch, pytest and the grader's
#   own (public) code, nothing secret. After the fork the two share no writable memory (copy
#   on write); everything crosses the same pipes as before, as data.
# - The child becomes the job's learner uid and then clears every capability itself: a plain
#   fork keeps the harness's SETUID/SETGID/KILL (an exec used to clear them), so capset to
#   zero is not optional, and the child checks /proc/self/status before running anything.
# - The environment is replaced (and the C environ with it), the working directory, session,
#   file descriptors (only the two channel ends and the output pipe survive) and signal
#   dispositions are those an exec'd runner had.
# - The harness has not run a parallel torch op before the fork (only imports), so no OpenMP
#   pool exists to be left broken in the child.

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import io
import os
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.sandboxes.jail import JobJail

PR_SET_DUMPABLE = 4
PR_SET_NAME = 15
RUNNER_NAME = b"learner-runner"  # at most 15 bytes: the kernel's comm field
STATUS_FAILED_DROP = 121  # the child could not shed privileges: it exits before learner code


def prepare(preload: str) -> None:
    """What every runner loads before learner code, done once in the harness before forking."""
    for name in filter(None, preload.split(",")):
        __import__(name)
    if "torch" in sys.modules:
        from grader.amp.lazy_dynamo import defer_dynamo_import

        defer_dynamo_import()
    from grader.runner import preload_platform

    preload_platform(freeze=False)  # the child freezes its own heap (gc.freeze is per process)


def can_fork(preload: str) -> bool:
    """Forking pays only where the harness has already imported what the runner preloads."""
    return hasattr(os, "fork") and all(name in sys.modules for name in filter(None, preload.split(",")))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def capset_to_zero() -> None:
    """Empty the effective, permitted and inheritable sets (allowed to any process)."""
    libc = ctypes.CDLL(None, use_errno=True)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)(_CapData(0, 0, 0), _CapData(0, 0, 0))
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def clear_capabilities() -> None:
    """No capability left, and dumpable again as an exec'd runner was."""
    capset_to_zero()
    libc = ctypes.CDLL(None, use_errno=True)
    # An exec'd runner was dumpable (its own uid may inspect it, as before); a uid change
    # without exec leaves it not dumpable, which would also hide its own /proc/self from it.
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)


def capabilities_left() -> int:
    """CapEff | CapPrm from /proc/self/status: must be 0 before learner code runs."""
    left = 0
    with open("/proc/self/status", "rb") as handle:  # bytes: no codec to import as another uid
        for line in handle:
            if line.startswith((b"CapEff:", b"CapPrm:", b"CapInh:", b"CapAmb:")):
                left |= int(line.split()[1], 16)
    return left


def spawn(*, submission: str, fd_in: int, fd_out: int, output_w: int, workdir: str,
          env: dict[str, str], ids: tuple[int, int] | None, job: JobJail | None = None) -> int:
    """Fork the runner; returns its pid. In the child this never returns.

    With a `job`, the child enters that job's jail (grader.sandboxes.jail) instead of only
    changing uid: its own uid and 0700 folder, Landlock, seccomp, rlimits; a step that fails
    ends it (121) before any learner code exists, and the job is an internal error.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    harness = os.getpid()
    if job is not None:
        job.prepare()  # what the child would otherwise work out on its own pages
    pid = os.fork()
    if pid:
        return pid
    try:
        _become_runner(fd_in, fd_out, output_w, workdir, env, ids)
        if job is not None:
            job.enter(harness)
    except BaseException as exc:  # noqa: BLE001 -- nothing of the harness may run on in the child
        with contextlib.suppress(OSError):  # fd 2 is the runner's output by now, if anything
            os.write(2, f"runner start failed: {type(exc).__name__}: {exc}\n".encode())
        os._exit(STATUS_FAILED_DROP)
    try:
        from grader.runner import serve_forked

        serve_forked(submission)
    finally:
        os._exit(1)  # whatever happened, never return into the harness's code


class ForkedProcess:
    """The forked runner seen as the harness sees a Popen: pid, stdout, poll, wait."""

    def __init__(self, pid: int, output_r: int):
        self.pid = pid
        self.stdout = open(output_r, "rb")  # noqa: SIM115 -- read by the drain thread
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self._reap(os.WNOHANG)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired("grader.runner (forked)", timeout or 0)
            time.sleep(0.005)
        assert self.returncode is not None
        return self.returncode

    def _reap(self, flags: int) -> None:
        try:
            pid, status = os.waitpid(self.pid, flags)
        except ChildProcessError:  # reaped elsewhere: report it as gone
            self.returncode = -signal.SIGKILL
            return
        if pid:
            self.returncode = os.waitstatus_to_exitcode(status)


def _become_runner(fd_in: int, fd_out: int, output_w: int, workdir: str,
                   env: dict[str, str], ids: tuple[int, int] | None) -> None:
    os.setsid()
    # Descriptors: 0 /dev/null, 1 and 2 the output pipe, 3 and 4 the channel; nothing else.
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(output_w, 1)
    os.dup2(output_w, 2)
    # Copies above any low number first, so that placing one never overwrites the other.
    moved_in, moved_out = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (fd_in, fd_out))
    os.dup2(moved_in, 3)
    os.dup2(moved_out, 4)
    os.closerange(5, _max_fd())
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as in any Python process
    # First, so no import after the uid switch looks at the harness's folder (not the runner's);
    # a jailed runner's folder is made by the jail, which then goes there.
    if os.path.isdir(workdir):
        os.chdir(workdir)
    # Its own name in ps and /proc/<pid>/comm: a forked runner's command line is the harness's.
    ctypes.CDLL(None).prctl(PR_SET_NAME, RUNNER_NAME, 0, 0, 0)
    if ids is not None:
        uid, gid = ids
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        clear_capabilities()
        if capabilities_left() or os.getuid() != uid or os.getgid() != gid or os.getgroups():
            raise PermissionError("the runner kept a privilege")
    # os.environ's clear/update reach the C environ too. /proc/self/environ still shows the
    # block the harness was exec'd with, so sandboxes start the harness with a clean one.
    os.environ.clear()
    os.environ.update(env)
    # A fresh interpreter's streams, unbuffered (PYTHONUNBUFFERED for an exec'd runner).
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = io.TextIOWrapper(open(1, "wb", buffering=0, closefd=False), encoding="utf-8",  # noqa: SIM115
                                  errors="backslashreplace", write_through=True)
    sys.stderr = io.TextIOWrapper(open(2, "wb", buffering=0, closefd=False), encoding="utf-8",  # noqa: SIM115
                                  errors="backslashreplace", write_through=True)
    sys.argv = ["grader.runner"]
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)  # what OMP_NUM_THREADS=1 gave an exec'd runner


def _max_fd() -> int:
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        return 4096

