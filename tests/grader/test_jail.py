"""The job jail (grader/sandboxes/jail.py): each step holds in a forked child, and end() leaves nothing."""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.sandboxes import jail

LEFT_BEHIND = f"/dev/shm/learnai-jail-left-{os.getpid()}"
pytestmark = pytest.mark.skipif(not jail.support().isolated, reason=jail.support().describe())


def in_jail(probe: Callable[[], Any], job: jail.JobJail | None = None) -> tuple[dict, jail.JobJail]:
    """Fork, enter a fresh jail, run `probe`; its result (or the step that failed) as data."""
    jail.prepare()
    job = job or jail.new_job()
    read_end, write_end = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover -- reported through the pipe
        me = os.getpid()
        try:
            os.close(read_end)
            try:
                jail.enter(job, parent)
                answer = {"value": probe()}
            except jail.JailError as exc:
                answer = {"refused": exc.step, "why": str(exc)}
            except BaseException as exc:  # noqa: BLE001
                answer = {"raised": f"{type(exc).__name__}: {exc}"}
            if os.getpid() == me:  # a process the probe forked never answers
                os.write(write_end, json.dumps(answer, default=repr).encode() + b"\n")
        finally:
            os._exit(0)  # never back into pytest, whoever we are
    os.close(write_end)
    with os.fdopen(read_end, "rb") as handle:
        answer = json.loads(handle.readline() or b"{}")  # a daemon may hold the pipe open
    os.waitpid(pid, 0)
    return answer, job


def attempt(action: Callable[[], Any]) -> str:
    try:
        action()
    except OSError as exc:
        return f"refused {exc.errno}"
    return "done"


def test_every_step_holds_and_the_interpreter_still_works():
    def probe():
        status = Path("/proc/self/status").read_text()
        import torch

        return {"uid": os.getuid(), "cwd": os.getcwd(), "home": os.environ["HOME"],
                "tmp": os.environ["TMPDIR"], "mode": oct(os.stat(".").st_mode & 0o777),
                "caps": [line for line in status.splitlines() if line.startswith("Cap")],
                "nnp": [line for line in status.splitlines() if line.startswith("NoNewPrivs")],
                "seccomp": [line for line in status.splitlines() if line.startswith("Seccomp:")],
                "sid": os.getsid(0) == os.getpid(), "torch": float(torch.arange(4.0).sum()),
                "lazy_import": __import__("statistics").mean([1, 2, 3])}

    answer, job = in_jail(probe)
    value = answer["value"]
    assert value["cwd"] == value["home"] == value["tmp"] == job.directory
    assert value["mode"] == "0o700" and value["sid"]
    if job.uid is not None:
        assert value["uid"] == job.uid
    assert all(line.split()[1] == "0000000000000000" for line in value["caps"])
    assert value["nnp"] == ["NoNewPrivs:\t1"] and value["seccomp"] == ["Seccomp:\t2"]
    assert value["torch"] == 6.0 and value["lazy_import"] == 2
    jail.end(job)
    assert not Path(job.directory).exists()


def test_files_outside_the_job_are_out_of_reach():
    exercises = Path(__file__).resolve().parents[2] / "exercises"
    solution = next(exercises.glob("*/solution.py"))
    other = jail.new_job()
    Path(other.directory).mkdir(mode=0o700)
    (Path(other.directory) / "secret.txt").write_text("other job")

    def probe():
        return {"exercises": attempt(lambda: os.listdir(exercises)),
                "solution": attempt(lambda: open(solution).read()),  # noqa: SIM115
                "other_job": attempt(lambda: open(Path(other.directory) / "secret.txt").read()),  # noqa: SIM115
                "tmp_write": attempt(lambda: open("/tmp/jail-planted", "w").write("x")),  # noqa: S108, SIM115
                "shm_list": attempt(lambda: os.listdir("/dev/shm")),
                "proc_1": attempt(lambda: open("/proc/1/environ", "rb").read()),  # noqa: SIM115
                "site": attempt(lambda: open(os.path.join(os.path.dirname(os.__file__), "x.pth"), "w")),  # noqa: SIM115
                "home_write": attempt(lambda: open("mine.txt", "w").write("ok"))}  # noqa: SIM115

    answer, job = in_jail(probe)
    value = answer["value"]
    assert value.pop("home_write") == "done"
    assert all(result.startswith("refused") for result in value.values()), value
    for made in (job, other):
        jail.end(made)


def test_network_processes_and_ipc_are_refused():
    parent = os.getpid()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(b"\0learnai-jail-test")
    abstract.listen()

    def probe():
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return {"tcp": attempt(lambda: socket.create_connection(("127.0.0.1", port), timeout=1)),
                "udp": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)),
                "abstract": attempt(lambda: socket.socket(socket.AF_UNIX).connect(b"\0learnai-jail-test")),
                "signal": attempt(lambda: os.kill(parent, 0)),
                "ptrace": libc.ptrace(16, parent, 0, 0) == -1 and ctypes.get_errno(),
                "shmget": libc.shmget(0, 4096, 0o1600) == -1 and ctypes.get_errno(),
                "unshare": libc.unshare(0x10000000) == -1 and ctypes.get_errno()}

    try:
        answer, job = in_jail(probe)
    finally:
        listener.close()
        abstract.close()
    value = answer["value"]
    assert value["tcp"].startswith("refused") and value["udp"].startswith("refused")
    assert value["abstract"].startswith("refused") and value["signal"].startswith("refused")
    assert value["ptrace"] and value["shmget"] and value["unshare"]
    jail.end(job)


def test_end_kills_a_daemon_left_behind_and_removes_its_files():
    def probe():
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                try:
                    fd = os.open(LEFT_BEHIND, os.O_CREAT | os.O_WRONLY, 0o644)
                    os.write(fd, b"left behind")
                finally:
                    while True:
                        time.sleep(1)
            os._exit(0)
        time.sleep(0.3)
        return "forked"

    answer, job = in_jail(probe)
    assert answer["value"] == "forked"
    if job.uid is None:
        pytest.skip("a uid per job needs root")
    assert Path(LEFT_BEHIND).exists()
    ended = jail.end(job)
    assert ended.killed >= 1 and ended.files_removed >= 1
    assert not Path(LEFT_BEHIND).exists()
    assert jail._kill_uid(job.uid, job.uid) == 0  # nothing of the uid is left


def test_end_told_none_is_alive_forks_no_killer_but_still_removes_what_the_job_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A slot's supervisor saw every process of its PID namespace: end() skips the kill (a fork
    of a process that imported torch, milliseconds a job) and still removes files and folder."""
    left = Path(f"{LEFT_BEHIND}-file")

    def probe():
        fd = os.open(left, os.O_CREAT | os.O_WRONLY, 0o644)
        os.write(fd, b"left behind")
        os.close(fd)
        return "wrote"

    answer, job = in_jail(probe)
    assert answer["value"] == "wrote"
    if job.uid is None:
        pytest.skip("a uid per job needs root")

    def no_fork(*_args: object, **_kwargs: object) -> int:
        raise AssertionError("told none is alive, end() must not fork a killer")

    monkeypatch.setattr(jail, "_kill_uid", no_fork)
    ended = jail.end(job, none_alive=True)
    assert ended.killed == 0 and ended.files_removed >= 1
    assert not left.exists() and not Path(job.directory).exists()


def test_a_failing_step_refuses_the_job(tmp_path):
    planted = tmp_path / "job"
    planted.symlink_to("/etc")  # a link where the job directory must be made
    answer, _job = in_jail(lambda: "ran", jail.JobJail(str(planted), None, None))
    assert answer.get("refused") == "directory", answer


def test_a_tree_beneath_tmp_is_readable_but_tmp_itself_never_is(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkout or venv under /tmp (CI's fresh clone) holds the interpreter's libraries: the
    runner must read them (a lazy `import torch._dynamo` failed there), never /tmp itself."""
    site = tmp_path / "venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [*sys.path, str(site), tempfile.gettempdir()])
    jail.read_paths.cache_clear()
    try:
        found = jail.read_paths()
    finally:
        jail.read_paths.cache_clear()
    assert os.path.realpath(site) in found
    assert os.path.realpath(tempfile.gettempdir()) not in found
    assert not any(jail._within(jail.jobs_root(), Path(path)) for path in found)
