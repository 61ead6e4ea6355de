"""The learner runner: an untrusted child process that loads the submission and answers data-only requests."""

from __future__ import annotations

import argparse
import linecache
import os
import resource
import sys
import types
from typing import Any

from grader import protocol
from grader.learner_errors import SUBMISSION_NAME, describe_exception, describe_syntax_error


def apply_limits(memory_mb: int, file_mb: int, processes: int) -> None:
    """Limits the kernel enforces on this process; in docker the cgroup limits come on top."""
    memory = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_mb * 1024 * 1024,) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.geteuid() != 0:  # root ignores RLIMIT_NPROC; the docker backend runs us as a user
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))


class Runner:
    """Holds the learner's module and serves requests until told to exit."""

    def __init__(self, submission_path: str):
        self.submission_path = submission_path
        self.module: types.ModuleType | None = None

    def load(self) -> dict[str, Any]:
        try:
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
        except BaseException as exc:  # noqa: BLE001 -- every learner failure is reported as data
            return {"ok": False, "error": describe_exception(exc)}
        try:
            return {"ok": True, "value": protocol.encode(value)}
        except (TypeError, ValueError) as exc:
            return {"ok": False, "error": {"kind": "unsendable", "type": type(exc).__name__,
                                           "message": str(exc), "line": None, "traceback": ""}}

    def serve(self, fd_in: int, fd_out: int) -> None:
        while True:
            try:
                request = protocol.read_message(fd_in)
            except EOFError:
                return
            op = request.get("op")
            if op == "exit":
                return
            handler = {"load": lambda _r: self.load(), "call": self.call,
                       "scenario": self.scenario}.get(op)
            if handler is None:
                reply: dict[str, Any] = {"ok": False, "error": {"kind": "protocol",
                                                                "message": f"unknown op {op!r}"}}
            elif op != "load" and self.module is None:
                reply = {"ok": False, "error": {"kind": "protocol", "message": "not loaded"}}
            else:
                reply = handler(request)
            sys.stdout.flush()
            sys.stderr.flush()
            protocol.write_message(fd_out, reply)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("submission")
    parser.add_argument("--fd-in", type=int, required=True)
    parser.add_argument("--fd-out", type=int, required=True)
    parser.add_argument("--memory-mb", type=int, default=2048)
    parser.add_argument("--file-mb", type=int, default=16)
    parser.add_argument("--processes", type=int, default=256)
    parser.add_argument("--preload", default="torch", help="modules to import before learner code")
    options = parser.parse_args()
    apply_limits(options.memory_mb, options.file_mb, options.processes)
    for name in filter(None, options.preload.split(",")):
        __import__(name)  # imported while the harness starts up, in parallel
    if "torch" in sys.modules:
        # torch imports its compiler on the first optimizer step (~1.5 s of CPU) for nothing
        # unless code compiles; the stand-in loads it only when something does.
        from grader.amp.lazy_dynamo import defer_dynamo_import

        defer_dynamo_import()
    # The learner's clock starts at this message, not at interpreter start-up.
    protocol.write_message(options.fd_out, {"ready": True})
    Runner(options.submission).serve(options.fd_in, options.fd_out)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # skip interpreter teardown: learner atexit hooks have nothing to say to us


if __name__ == "__main__":
    main()
