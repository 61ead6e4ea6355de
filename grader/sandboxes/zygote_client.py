"""The pool's side of the zygote (grader.sandboxes.zygote): start it once, ask it for warm sandboxes."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from grader.sandboxes import resources

READY_TIMEOUT_S = 180  # torch and pytest imports on a very busy machine


class ZygoteChild:
    """A sandbox the zygote forked, seen as a Popen: pid, stdin, stdout, poll, wait.

    It is the zygote's child, not ours: we watch it through a pidfd (readable once it has
    exited) and never learn its exit status; the kernel reaps it.
    """

    def __init__(self, pid: int, stdin: IO[bytes], stdout: IO[bytes]):
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.returncode: int | None = None
        try:
            self._pidfd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:  # gone already
            self._pidfd = None
            self.returncode = 0

    def poll(self) -> int | None:
        if self.returncode is None and self._pidfd is not None:
            ready, _, _ = select.select([self._pidfd], [], [], 0)
            if ready:
                self._ended()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        if self.returncode is None and self._pidfd is not None:
            ready, _, _ = select.select([self._pidfd], [], [], timeout)
            if not ready:
                raise subprocess.TimeoutExpired(f"warm sandbox {self.pid}", timeout or 0)
            self._ended()
        return self.returncode

    def _ended(self) -> None:
        # The status belongs to the zygote (which lets the kernel reap): unknown here; 0 keeps
        # "ended" distinct from "running" for callers that only compare with None.
        self.returncode = 0
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None


class Zygote:
    """One zygote process per pool process, started on first use, restarted if it died."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # A clean environment: the zygote's memory is every warm sandbox's start, so nothing of
        # the web app's (its secret key, its database URL) may be in it.
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
               "HOME": os.environ.get("HOME", "/tmp"),  # noqa: S108
               "PYTHONPATH": same_grader_path(), "PYTHONDONTWRITEBYTECODE": "1",
               "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2",
               # CUDA must never be initialised before a fork: torch.cuda.is_available() asks NVML.
               "PYTORCH_NVML_BASED_CUDA_CHECK": "1",
               **{k: v for k, v in os.environ.items() if k.startswith("GRADER_")}}
        self.process = subprocess.Popen(  # noqa: S603 -- our own interpreter and module
            [sys.executable, "-m", "grader.sandboxes.zygote", "--fd", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, start_new_session=True)
        theirs.close()
        self.channel = ours
        self._lock = threading.Lock()
        self._reader = ours.makefile("rb")
        ready, _, _ = select.select([ours], [], [], READY_TIMEOUT_S)
        line = self._reader.readline() if ready else b""
        if line.strip() != b"ready":
            self.close()
            raise RuntimeError(f"the zygote did not get ready: {line[:200]!r}")

    def alive(self) -> bool:
        return self.process.poll() is None

    def cpu_seconds(self) -> float:
        """CPU of the zygote and of every sandbox it forked that has ended (for benches)."""
        try:
            fields = open(f"/proc/{self.process.pid}/stat", "rb").read().rsplit(b")", 1)[1].split()  # noqa: SIM115
        except OSError:
            return 0.0
        # After ") ": state is field 3 of stat(5), so utime..cstime (14..17) are [11:15] here.
        return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")

    def spawn(self, *, nice: int, max_idle_s: float, log: IO[bytes],
              jail: str | None = None) -> ZygoteChild:
        """A new warm sandbox, forked; its stdin and stdout are pipes to us, stderr `log`.

        `jail`: the job's jail (grader.sandboxes.jail.JobJail.to_arg) its runner enters.
        """
        job_r, job_w = os.pipe()
        out_r, out_w = os.pipe()
        try:
            request = json.dumps({"nice": nice, "max_idle_s": max_idle_s, "jail": jail}).encode()
            with self._lock:
                socket.send_fds(self.channel, [request], [job_r, out_w, log.fileno()])
                ready, _, _ = select.select([self.channel], [], [], 30)
                reply = json.loads(self._reader.readline() or b"{}") if ready else {}
        except BaseException:
            for fd in (job_w, out_r):
                os.close(fd)
            raise
        finally:
            os.close(job_r)
            os.close(out_w)
        if not reply.get("pid"):
            os.close(job_w)
            os.close(out_r)
            raise RuntimeError(f"the zygote could not fork: {reply!r}")
        return ZygoteChild(int(reply["pid"]), open(job_w, "wb"), open(out_r, "rb"))  # noqa: SIM115

    def close(self) -> None:
        """End the zygote (its sandboxes live on until their pool discards them)."""
        try:
            self.channel.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


def same_grader_path() -> str:
    """PYTHONPATH for a fresh interpreter that must import this very grader package (its
    `--jail` and all), whatever its working directory and whatever is installed."""
    import grader

    here = str(Path(grader.__file__).resolve().parents[1])
    return os.pathsep.join([here, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))])


def zygote() -> Zygote:
    """This process's zygote, started now if there is none (or it died); a forked child starts its own."""
    return resources.shared("zygote", Zygote, usable=Zygote.alive)


def current() -> Zygote | None:
    """This process's zygote if one runs (None: none started yet)."""
    return resources.current("zygote")


def close_zygote() -> None:
    """End this process's zygote (at exit: grader.sandboxes.resources)."""
    running = resources.take_back("zygote")
    if running is not None:
        running.close()


def zygote_supported() -> bool:
    return hasattr(os, "pidfd_open") and hasattr(socket, "send_fds") and hasattr(os, "fork")


resources.register("zygote", close=close_zygote)
