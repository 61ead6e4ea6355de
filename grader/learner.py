"""The harness's handle on the learner runner: starts it, sends data-only requests, enforces time and output caps."""

from __future__ import annotations

import ast
import os
import pwd
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader import protocol, runner_fork
from grader.schema import Limits

if TYPE_CHECKING:
    from grader.sandboxes.jail import JobJail

OUTPUT_HARD_FACTOR = 16  # output beyond cap * factor ends the run as an output flood
STARTUP_TIMEOUT_S = 90  # interpreter + torch import on a loaded machine; not the learner's time


def cpu_backstop_s(time_s: float) -> float:
    """CPU seconds after which the kernel ends a runner: far past anything the wall-clock limit
    lets a job use (a few threads busy for the whole limit), so it only ever stops an orphan."""
    return 4 * time_s + 60


class LearnerError(Exception):
    """The learner's code raised (or returned something unsendable) during one request."""

    def __init__(self, error: dict[str, Any]):
        self.error = error
        self.line: int | None = error.get("line")
        super().__init__(f"{error.get('type', 'Error')}: {error.get('message', '')}")


class LearnerFatal(Exception):
    """The runner cannot go on (timeout, memory, output flood, crash): the whole run ends."""

    def __init__(self, kind: str, message: str, line: int | None = None):
        self.kind = kind
        self.line = line
        super().__init__(message)


class Learner:
    """A running learner process and its captured output."""

    def __init__(self, submission: Path, limits: Limits, *, workdir: Path,
                 runner_user: str | None = None, preload: str = "torch", fork: bool = False,
                 jail: JobJail | None = None):
        self.submission = Path(submission)  # may not exist yet: a warm runner waits for it
        self._source: str | None = None
        self.limits = limits
        self.workdir = workdir
        self.runner_user = runner_user
        self.preload = preload
        # The harness forks its runner (grader.runner_fork) when it has imported torch itself:
        # one torch import per job instead of two. Other callers start a fresh interpreter.
        self.fork = fork
        # A jailed runner (grader.sandboxes.jail) lives in the jail's folder, not `workdir`, and
        # gets the submission's text in its load request: it can read nothing of the harness's.
        self.jail = jail
        self.advice: list[dict[str, str] | str] = []
        self.fatal: LearnerFatal | None = None
        self.load_error: dict[str, Any] | None = None
        self._output = bytearray()
        self._output_total = 0
        self._flooded = False
        self._deadline = 0.0
        self._clock_started = False
        self._running_line: int | None = None  # the runner's last report of the learner's line
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def source(self) -> str:
        if self._source is None:
            self._source = self.submission.read_text(encoding="utf-8")
        return self._source

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> None:
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        home = self.jail.directory if self.jail is not None else str(self.workdir)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TMPDIR": home,
               "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
               # One thread keeps torch start-up fast and inside the process limit.
               "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2",
               "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
        ids = None if self.jail is not None else self._runner_ids()
        if self.jail is not None and not runner_fork.can_fork(self.preload):
            runner_fork.prepare(self.preload)  # a jail is entered by a fork, never an exec
        if self.jail is not None or (self.fork and runner_fork.can_fork(self.preload)):
            output_r, output_w = os.pipe()
            pid = runner_fork.spawn(submission=str(self.submission), fd_in=to_child_r,
                                    fd_out=from_child_w, output_w=output_w,
                                    workdir=home, env=env, ids=ids, job=self.jail)
            os.close(output_w)
            self._process = runner_fork.ForkedProcess(pid, output_r)  # type: ignore[assignment]
        else:
            # Limits travel with the load request: a warm runner is started before its job's
            # exercise (and so its limits) is known; none of them binds before learner code runs.
            command = [sys.executable, "-m", "grader.runner", str(self.submission),
                       "--fd-in", str(to_child_r), "--fd-out", str(from_child_w),
                       "--preload", self.preload]
            user = {} if ids is None else {"user": ids[0], "group": ids[1], "extra_groups": []}
            self._process = subprocess.Popen(  # noqa: S603 -- our own interpreter and module
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                pass_fds=(to_child_r, from_child_w), cwd=self.workdir, env=env,
                start_new_session=True, **user,
            )
        os.close(to_child_r)
        os.close(from_child_w)
        self._ready = False
        self._reader = threading.Thread(target=self._drain_output, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int | None:
        """The runner's pid (also its process group and session), once started."""
        return self._process.pid if self._process is not None else None

    def _runner_ids(self) -> tuple[int, int] | None:
        """(uid, gid) to run the learner as (runner_user: a user name, or "UID:GID"); None: ours."""
        if self.runner_user is None:
            return None
        # The docker sandbox passes a fresh numeric uid per job: per-uid kernel counts
        # (RLIMIT_NPROC above all) span every container on the host, so a shared uid
        # would let one job's fork bomb starve another's.
        uid, _, gid = self.runner_user.partition(":")
        if uid.isdigit():
            ids = (int(uid), int(gid or uid))
        else:
            account = pwd.getpwnam(self.runner_user)
            ids = (account.pw_uid, account.pw_gid)
        # The runner's own uid must reach its working directory (sticky, like /tmp) and
        # read its code; it gets its own group and no supplementary ones, never ours.
        os.chmod(self.workdir, 0o1777)  # noqa: S103 -- sticky; the harness keeps nothing here
        if self.submission.exists():
            os.chmod(self.submission, 0o644)
        return ids

    def assign(self, limits: Limits) -> None:
        """Give a warm learner its job's limits (the submission file is in place by now)."""
        self.limits = limits
        self._source = None
        if self.runner_user is not None and self.submission.exists():
            os.chmod(self.submission, 0o644)

    def load(self) -> bool:
        """Import the submission; False (with load_error set) when it does not import."""
        request: dict[str, Any] = {"op": "load", "limits": {
            "memory_mb": self.limits.memory_mb, "processes": self.limits.processes,
            "cpu_s": cpu_backstop_s(self.limits.time_s), "time_s": self.limits.time_s}}
        if self.jail is not None:
            request["source"] = self.source  # the runner cannot read the harness's copy
        reply = self._request(request)
        if not reply.get("ok"):
            self.load_error = reply.get("error", {})
            return False
        return True

    def close(self) -> None:
        process = self._process
        if process is None:
            return
        if process.poll() is None and self.fatal is None:
            try:
                protocol.write_message(self._to_child, {"op": "exit"})
                process.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._kill()
        self._reader.join(timeout=2)
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass

    def _kill(self) -> None:
        if self._process is None:  # never started
            return
        try:  # the whole session: learner code may have forked
            os.killpg(self._process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    # -- requests --------------------------------------------------------------------------
    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call a top-level function of the submission with data arguments; returns its result."""
        return self._value(self._request({"op": "call", "name": name,
                                          "args": protocol.encode(list(args)),
                                          "kwargs": protocol.encode(kwargs)}))

    def scenario(self, name: str, **params: Any) -> Any:
        """Run a registered scenario (trusted fixture code) in the learner's process."""
        return self._value(self._request({"op": "scenario", "name": name,
                                          "params": protocol.encode(params)}))

    def advise(self, text: dict[str, str] | str) -> None:
        """A non-failing note for the learner (e.g. a deprecated API)."""
        if text not in self.advice:
            self.advice.append(text)

    def line_of(self, name: str) -> int | None:
        """The line of a top-level def or class of the submission."""
        try:
            tree = ast.parse(self.source)
        except SyntaxError:
            return None
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node.name == name:
                    return node.lineno
        return None

    def _value(self, reply: dict[str, Any]) -> Any:
        if not reply.get("ok"):
            error = reply.get("error") or {}
            if error.get("type") == "MemoryError":  # the address-space limit was hit
                self.fatal = LearnerFatal("memory", "the program ran out of memory",
                                          error.get("line"))
                self._kill()
                raise self.fatal
            if error.get("kind") == "resources":  # threads/processes used up: name it
                self.fatal = LearnerFatal("runtime", error.get("message", "too many threads"))
                self._kill()
                raise self.fatal
            raise LearnerError(error)
        return protocol.decode(reply.get("value"))

    def _wait_until_ready(self) -> None:
        self._deadline = time.monotonic() + STARTUP_TIMEOUT_S
        try:
            hello = self._await_reply()
        except LearnerFatal as fatal:
            raise LearnerFatal("internal", f"the learner runner did not start: {fatal}") from None
        if hello != {"ready": True}:
            raise LearnerFatal("runtime", "the program wrote to the grader's channel")
        self._ready = True

    def wait_ready(self) -> None:
        """Block until the runner has imported what it preloads (a warm sandbox does this idle)."""
        if not self._ready:
            self._wait_until_ready()

    def _request(self, message: dict[str, Any]) -> dict[str, Any]:
        if self.fatal is not None:
            raise self.fatal
        try:
            if not self._ready:
                self._wait_until_ready()
            if not self._clock_started:  # the learner's clock starts with the job's first request
                self._clock_started = True
                self._deadline = time.monotonic() + self.limits.time_s
            protocol.write_message(self._to_child, message)
            return self._await_reply()
        except LearnerFatal as fatal:
            self.fatal = fatal
            self._kill()
            raise

    def _await_reply(self) -> dict[str, Any]:
        while True:
            message = self._await_message()
            if not protocol.is_running_report(message):
                return message
            # Near the limit the runner says which line the learner's code is on; a line that
            # is not one of the submission's is dropped (the runner is untrusted).
            line = protocol.running_report(message, self._line_count())
            if line is not None:
                self._running_line = line

    def _line_count(self) -> int:
        try:
            return len(self.source.splitlines())
        except (OSError, UnicodeDecodeError):
            return 0

    def _await_message(self) -> dict[str, Any]:
        while True:
            remaining = self._deadline - time.monotonic()
            if remaining <= 0:
                raise LearnerFatal("timeout", f"time limit of {self.limits.time_s:g} s exceeded",
                                   self._running_line)
            ready, _, _ = select.select([self._from_child], [], [], min(remaining, 0.5))
            if self._flooded:
                raise LearnerFatal("output-limit", "the program printed too much output")
            if ready:
                break
        try:
            return protocol.read_message(self._from_child)
        except (EOFError, BrokenPipeError):
            raise self._death() from None
        except protocol.ProtocolError as exc:
            raise LearnerFatal("runtime", f"the program broke the grader's channel: {exc}") from exc

    def _death(self) -> LearnerFatal:
        assert self._process is not None
        try:
            code = self._process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        if self._flooded:
            return LearnerFatal("output-limit", "the program printed too much output")
        if code == -signal.SIGKILL:  # the kernel's OOM killer, or a cgroup limit
            return LearnerFatal("memory", "the program was killed, most likely for using too much memory")
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            return LearnerFatal("runtime", f"the program crashed with signal {name}")
        return LearnerFatal("runtime", f"the program exited (code {code}) before grading finished")

    # -- output ----------------------------------------------------------------------------
    def _drain_output(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        cap = self.limits.output_kb * 1024
        stream = self._process.stdout
        while chunk := stream.read1(65536):
            self._output_total += len(chunk)
            if len(self._output) < cap:
                self._output += chunk[: cap - len(self._output)]
            if self._output_total > cap * OUTPUT_HARD_FACTOR and not self._flooded:
                self._flooded = True
                self._kill_quietly()

    def _kill_quietly(self) -> None:
        try:
            os.killpg(self._process.pid, signal.SIGKILL)  # type: ignore[union-attr]
        except (ProcessLookupError, PermissionError):
            pass

    @property
    def output(self) -> str:
        text = self._output.decode("utf-8", errors="replace")
        dropped = self._output_total - len(self._output)
        if dropped > 0:
            text += f"\n… [{dropped} more bytes of output not kept]"
        return text
