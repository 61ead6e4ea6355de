"""The local pool's zygote: one process that has imported torch, pytest and the grader, and forks warm sandboxes.

    python -m grader.sandboxes.zygote --fd N     (started by grader.sandboxes.local_warm)

A warm local sandbox started as a fresh interpreter spends about 3 s of CPU importing torch,
pytest and the grader before it can wait for a job; a pool refills one per grading, so on a
2-core host the refills, not the gradings, used most of the CPU. The zygote imports all of
that once, and each refill is a fork of it (tens of milliseconds). Why that keeps the
boundary (docs/sandbox.md, "Local warm sandboxes come from a zygote"):
- the zygote never reads an exercise, a test, a solution or a submission: it only imports
  the grader's own code, so a forked sandbox starts with nothing secret in its memory, as a
  fresh interpreter did; each sandbox then forks its learner runner before its one job
  arrives (grader.runner_fork), exactly as before;
- it is started with a clean environment (not the web app's: no secret key or database URL);
- a forked sandbox is a new session with only its own three descriptors (stdin, stdout,
  log), shares no writable memory with the zygote or its siblings (copy on write), and is
  thrown away after its job, like any warm sandbox.
The protocol is one Unix socket: the pool sends {"nice": N, "max_idle_s": S, "jail": JOB} with
three file descriptors (SCM_RIGHTS); the zygote answers {"pid": PID}. EOF ends the zygote.
JOB (grader.sandboxes.jail.JobJail.to_arg, or null) is the jail the sandbox's learner runner
enters; the sandbox itself takes the harness's layers (jail.harden_harness) and dies with us.
CUDA is never initialised here (PYTORCH_NVML_BASED_CUDA_CHECK=1: an availability check asks
NVML, not the driver); each job's runner initialises it itself, after the fork.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sys

MESSAGE_BYTES = 4096


def prepare() -> None:
    """Everything a warm sandbox imports, once (what warm_entry.main would do before its job)."""
    from grader import runner_fork
    from grader.sandboxes.warm_entry import warm_up

    runner_fork.prepare("torch")
    warm_up()
    from grader.sandboxes import jail

    jail.prepare()  # the seccomp program and the read paths, once for every job


def _reap(_signum: int, _frame: object) -> None:
    """Reap every sandbox that ended (their pool watches each through a pidfd, not a wait).

    Reaped, not ignored (SIG_IGN): so their CPU time adds up in this process's children's
    usage, which bench/core_seconds.py reads from /proc/<zygote>/stat.
    """
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(channel: socket.socket) -> None:
    signal.signal(signal.SIGCHLD, _reap)
    while True:
        try:
            message, fds, _flags, _address = socket.recv_fds(channel, MESSAGE_BYTES, 3)
        except (ConnectionResetError, OSError):
            return
        if not message:
            return  # the pool's process closed its end (or died): nothing more to start
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            channel.sendall(b'{"pid": null}\n')
            continue
        request = json.loads(message)
        zygote = os.getpid()
        pid = os.fork()
        if pid == 0:
            channel.close()
            _become_sandbox(fds, request, zygote)  # never returns
        for fd in fds:
            os.close(fd)
        channel.sendall(json.dumps({"pid": pid}).encode() + b"\n")


def _become_sandbox(fds: list[int], request: dict, zygote: int) -> None:
    code = 1
    try:
        os.setsid()
        for target, fd in enumerate(fds):  # stdin (the job line), stdout ("ready"), stderr (log)
            os.dup2(fd, target)
        os.closerange(3, _max_fd())
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the sandbox waits for its runner
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False, buffering=1)  # noqa: SIM115
        from grader.sandboxes import warm_entry

        jailed = ["--jail", str(request["jail"]), "--parent-pid", str(zygote)] if request.get("jail") else []
        code = warm_entry.main(["--max-idle-s", str(float(request.get("max_idle_s", 900))),
                                "--nice", str(int(request.get("nice", 0))), "--prewarmed", *jailed])
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)  # never return into the zygote's loop


def _max_fd() -> int:
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        return 4096


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fd", type=int, required=True, help="the Unix socket to the pool")
    options = parser.parse_args()
    channel = socket.socket(fileno=options.fd)
    prepare()
    channel.sendall(b"ready\n")
    serve(channel)
    return 0


if __name__ == "__main__":
    code = main()
    os._exit(code)  # no interpreter teardown (torch's takes ~0.3 s)
