"""The learner runner: an untrusted child process that loads the submission and answers data-only requests."""

from __future__ import annotations

import argparse
import errno
import gc
import importlib
import linecache
import os
import pkgutil
import resource
import signal
import sys
import threading
import types
from typing import Any

from grader import protocol
from grader.learner_errors import SUBMISSION_NAME, describe_exception, describe_syntax_error, running_line


def apply_limits(memory_mb: int, file_mb: int, processes: int, cpu_s: float | None = None) -> None:
    """Limits the kernel enforces on this process; in docker the cgroup limits come on top.

    cpu_s is a backstop, not the learner's limit (the harness stops the runner at its wall-clock
    limit): a runner whose harness was killed outright would otherwise spin on with no one to
    stop it, outside docker (seen: an endless loop still burning a core 70 minutes later).
    """
    memory = memory_mb * 1024 * 1024
    # CUDA reserves address space for the whole device at start-up (far past any RLIMIT_AS a
    # learner gets), so a GPU host sets GRADER_MEMORY_RLIMIT=data: the cap then counts the
    # memory a process writes to, not the addresses it reserves.
    which = resource.RLIMIT_DATA if os.environ.get("GRADER_MEMORY_RLIMIT") == "data" else resource.RLIMIT_AS
    _lower(which, memory)
    if cpu_s is not None:
        used = resource.getrusage(resource.RUSAGE_SELF)
        _lower(resource.RLIMIT_CPU, int(used.ru_utime + used.ru_stime + cpu_s) + 1)
    _lower(resource.RLIMIT_FSIZE, file_mb * 1024 * 1024)
    _lower(resource.RLIMIT_CORE, 0)
    if os.geteuid() != 0:  # root ignores RLIMIT_NPROC; the docker backend runs us as a user
        _lower(resource.RLIMIT_NPROC, processes)


def _lower(kind: int, value: int) -> None:
    """Set soft and hard to `value`, never above a ceiling already there (a jail's)."""
    _soft, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))


# Python threads the learner starts get this much stack, not glibc's 8 MiB: with the default,
# a thread explosion used up the address-space limit before the process limit, and then
# the runner itself could not map a library or allocate a reply (issue 15).
THREAD_STACK_BYTES = 1 << 20
RESOURCE_HINT = ("the program started too many threads or processes ({threads} threads "
                 "running; limit {limit}), so the grader could not continue")


def thread_count() -> int:
    """Threads of this process right now, C ones included (what the kernel counts)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return threading.active_count()


def is_exhaustion(exc: BaseException) -> bool:
    """Whether an exception means "out of threads, processes or address space"."""
    if isinstance(exc, MemoryError):
        return True
    if isinstance(exc, OSError) and exc.errno in (errno.EAGAIN, errno.ENOMEM):
        return True
    text = str(exc)
    return "can't start new thread" in text or "failed to map segment" in text


def preload_platform(freeze: bool = True) -> None:
    """Load everything the runner's own side needs before learner code can exhaust anything.

    Scenarios, the tensor codec (safetensors' native library) and the protocol are all in
    memory before the submission runs; a learner who then uses up threads, processes or
    address space cannot make the platform's channel fail to load (issue 15).
    """
    from grader import scenarios

    if "torch" in sys.modules:
        import safetensors.torch  # noqa: F401 -- maps _safetensors_rust now, not mid-grading

        # Every scenario module (they import torch and the AMP tracer).
        for info in pkgutil.iter_modules(scenarios.__path__):
            importlib.import_module(f"{scenarios.__name__}.{info.name}")
        protocol.decode(protocol.encode(sys.modules["torch"].zeros(1)))  # warm the codec
    if freeze:
        freeze_platform()


def freeze_platform() -> None:
    """Per process, just before learner code: thread stacks, and the loaded heap frozen."""
    threading.stack_size(THREAD_STACK_BYTES)
    # Everything loaded so far lives until exit: a collection the learner's code triggers then
    # walks only the learner's objects, not torch's (the same reason as in warm_entry.warm_up).
    gc.freeze()


# The runner reports the learner's line this long before the harness's time limit, and again
# every REPORT_EVERY_S until it is stopped: the harness keeps the last report, so a time-out
# names the line the code was still running (issue 25) rather than only "the first loop".
REPORT_BEFORE_S = 1.0
REPORT_EVERY_S = 0.25


class Runner:
    """Holds the learner's module and serves requests until told to exit."""

    def __init__(self, submission_path: str, processes: int = 256):
        self.submission_path = submission_path
        self.processes = processes
        self.module: types.ModuleType | None = None
        self.fd_out: int | None = None

    def arm_running_report(self, time_s: float) -> None:
        """Report the learner's line shortly before the time limit (SIGALRM on a wall-clock timer,
        started with the job's first request as the harness's clock is)."""
        if self.fd_out is None or time_s <= 0:
            return
        signal.signal(signal.SIGALRM, self._report_running)
        first = max(time_s - min(REPORT_BEFORE_S, time_s / 4), 0.01)
        signal.setitimer(signal.ITIMER_REAL, first, REPORT_EVERY_S)

    def _report_running(self, _signum: int, frame: types.FrameType | None) -> None:
        if protocol.writing() or self.fd_out is None:  # mid-reply: the next tick reports
            return
        line = running_line(frame)
        if line is None:  # between requests, or in the platform's own code
            return
        try:
            protocol.write_message(self.fd_out, {protocol.RUNNING_KEY: {"line": line}})
        except OSError:  # the harness is gone or stopped reading: nothing to tell
            pass

    def load(self, request: dict[str, Any]) -> dict[str, Any]:
        limits = request.get("limits") or {}
        self.processes = int(limits.get("processes", self.processes))
        cpu_s = limits.get("cpu_s")
        apply_limits(int(limits.get("memory_mb", 2048)), 16, self.processes,
                     float(cpu_s) if cpu_s is not None else None)
        if limits.get("time_s") is not None:
            self.arm_running_report(float(limits["time_s"]))
        try:
            source = request.get("source")  # a jailed runner's: it may read no harness file
            if not isinstance(source, str):
                with open(self.submission_path, encoding="utf-8") as handle:
                    source = handle.read()
        except (OSError, UnicodeDecodeError) as exc:  # the platform's fault, not the learner's
            return {"ok": False, "error": {"kind": "internal", "type": type(exc).__name__,
                                           "message": f"cannot read the submission: {exc}",
                                           "line": None, "traceback": ""}}
        # Registering the source lets tracebacks and inspect show the learner's lines.
        linecache.cache[SUBMISSION_NAME] = (len(source), None, source.splitlines(True), SUBMISSION_NAME)
        try:
            code = compile(source, SUBMISSION_NAME, "exec", dont_inherit=True)
        except SyntaxError as exc:
            return {"ok": False, "error": describe_syntax_error(exc)}
        module = types.ModuleType("submission")
        module.__file__ = SUBMISSION_NAME
        sys.modules["submission"] = module
        try:
            exec(code, module.__dict__)  # noqa: S102 -- running learner code is this process's job
        except BaseException as exc:  # noqa: BLE001 -- SystemExit at import is the learner's too
            return {"ok": False, "error": describe_exception(exc)}
        self.module = module
        return {"ok": True}

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        name = request["name"]
        function = getattr(self.module, name, None)
        if not callable(function):
            return {"ok": False, "error": {"kind": "missing", "type": "AttributeError",
                                           "message": name, "line": None, "traceback": ""}}
        args = protocol.decode(request.get("args", []))
        kwargs = protocol.decode(request.get("kwargs", {}))
        return self._run(lambda: function(*args, **kwargs))

    def scenario(self, request: dict[str, Any]) -> dict[str, Any]:
        from grader.scenarios import find

        run = find(request["name"])
        params = protocol.decode(request.get("params", {}))
        return self._run(lambda: run(self.module, params))

    def _run(self, thunk: Any) -> dict[str, Any]:
        try:
            value = thunk()
        except AttributeError as exc:
            if getattr(exc, "obj", None) is self.module and exc.name:  # a scenario reached for a missing def
                return {"ok": False, "error": {"kind": "missing", "type": "AttributeError",
                                               "message": exc.name, "line": None, "traceback": ""}}
            return {"ok": False, "error": describe_exception(exc)}
        except BaseException as exc:  # noqa: BLE001 -- every learner failure is reported as data
            return {"ok": False, "error": describe_exception(exc)}
        try:
            return {"ok": True, "value": protocol.encode(value)}
        except (TypeError, ValueError) as exc:
            return {"ok": False, "error": {"kind": "unsendable", "type": type(exc).__name__,
                                           "message": str(exc), "line": None, "traceback": ""}}
        except BaseException as exc:  # noqa: BLE001 -- our own side ran out of something
            return self.exhausted(exc)

    def exhausted(self, exc: BaseException) -> dict[str, Any]:
        """The reply when the runner's own work failed: name the cause when it is exhaustion."""
        if not is_exhaustion(exc):
            return {"ok": False, "error": {"kind": "internal", "type": type(exc).__name__,
                                           "message": f"runner: {exc}", "line": None,
                                           "traceback": ""}}
        message = RESOURCE_HINT.format(threads=thread_count(), limit=self.processes)
        return {"ok": False, "error": {"kind": "resources", "type": type(exc).__name__,
                                       "message": message, "line": None, "traceback": ""}}

    def serve(self, fd_in: int, fd_out: int) -> None:
        self.fd_out = fd_out
        while True:
            try:
                request = protocol.read_message(fd_in)
            except EOFError:
                return
            op = request.get("op")
            if op == "exit":
                return
            handler = {"load": self.load, "call": self.call,
                       "scenario": self.scenario}.get(op)
            if handler is None:
                reply: dict[str, Any] = {"ok": False, "error": {"kind": "protocol",
                                                                "message": f"unknown op {op!r}"}}
            elif op != "load" and self.module is None:
                reply = {"ok": False, "error": {"kind": "protocol", "message": "not loaded"}}
            else:
                try:
                    reply = handler(request)
                except BaseException as exc:  # noqa: BLE001 -- decoding args, finding a scenario
                    reply = self.exhausted(exc)
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except BaseException:  # noqa: BLE001, S110 -- the learner may have closed them
                pass
            protocol.write_message(fd_out, reply)


def serve_forked(submission: str) -> None:
    """The runner's life when forked from the harness (grader.runner_fork): fds 3 in, 4 out."""
    freeze_platform()
    protocol.write_message(4, {"ready": True})
    Runner(submission).serve(3, 4)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("submission")
    parser.add_argument("--fd-in", type=int, required=True)
    parser.add_argument("--fd-out", type=int, required=True)
    parser.add_argument("--preload", default="torch", help="modules to import before learner code")
    options = parser.parse_args()
    for name in filter(None, options.preload.split(",")):
        __import__(name)  # imported while the harness starts up, in parallel
    if "torch" in sys.modules:
        # torch imports its compiler on the first optimizer step (~1.5 s of CPU) for nothing
        # unless code compiles; the stand-in loads it only when something does.
        from grader.amp.lazy_dynamo import defer_dynamo_import

        defer_dynamo_import()
    preload_platform()
    # The learner's clock starts at this message, not at interpreter start-up.
    protocol.write_message(options.fd_out, {"ready": True})
    Runner(options.submission).serve(options.fd_in, options.fd_out)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # skip interpreter teardown: learner atexit hooks have nothing to say to us


if __name__ == "__main__":
    main()
