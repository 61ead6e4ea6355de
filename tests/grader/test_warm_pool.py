"""The local warm pool: one job per sandbox, cold start when empty, crashed members replaced, nothing left."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.api import grade_code, run_code
from grader.loader import Exercise, load_exercise
from grader.sandboxes import pool as pools
from grader.sandboxes import resources
from grader.sandboxes.local import LocalSandbox
from grader.sandboxes.local_warm import LocalMember, local_pool, local_run_pool

REPO = Path(__file__).resolve().parents[2]
FILL_S = 240  # a warm member imports torch and pytest twice over; generous on a busy machine
pytestmark = pytest.mark.slow


@pytest.fixture
def flagship() -> Exercise:
    return load_exercise(REPO / "exercises" / "amp-train-one-epoch")


@pytest.fixture
def pool_of(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """Sets the pool size for this test; every pool is closed before and after it.

    lane "run": the pool that Runs (run_code) take from, apart from grading's.
    """

    def make(size: int, lane: str = "grade") -> pools.WarmPool:
        pools.close_all()
        monkeypatch.setenv("GRADER_RUN_POOL_SIZE" if lane == "run" else "GRADER_POOL_SIZE", str(size))
        return local_run_pool() if lane == "run" else local_pool()

    yield make
    pools.close_all()


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")


def family(pid: int) -> list[int]:
    """pid and its descendants (a warm harness and its learner runner)."""
    found = [pid]
    for parent in found:
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        found.extend(int(child) for child in children)
    return found


def wait_gone(pids: list[int], seconds: float = 20) -> list[int]:
    deadline = time.monotonic() + seconds
    while (alive := [pid for pid in pids if pid_alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


LEAVES_STATE = """
import builtins, os, threading, time
open("left-behind.txt", "w").write("secret of the first learner")
builtins.LEFT_BEHIND = True
def scribble():
    while True:
        open("scribble.txt", "a").write("x")
        time.sleep(0.01)
threading.Thread(target=scribble).start()  # not a daemon: it would keep its process alive
print("pid", os.getpid(), "cwd", os.getcwd())
"""

LOOKS_AROUND = """
import builtins, os, threading
print("pid", os.getpid(), "cwd", os.getcwd())
print("files", sorted(os.listdir(".")))
print("left", getattr(builtins, "LEFT_BEHIND", False), "threads", threading.active_count())
"""


def field(output: str, name: str) -> str:
    found = re.search(rf"\b{name} (\S+)", output)
    assert found, output
    return found.group(1)


def test_a_warm_sandbox_takes_one_job_and_the_next_learner_sees_nothing_of_it(pool_of, flagship):
    pool = pool_of(2, "run")
    assert pool.wait_filled(FILL_S)
    first = run_code(flagship, LEAVES_STATE, sandbox="local")
    assert first["status"] == "ok", first
    second = run_code(flagship, LOOKS_AROUND, sandbox="local")
    assert second["status"] == "ok", second
    out = second["output"]
    assert field(first["output"], "pid") != field(out, "pid")
    assert field(first["output"], "cwd") != field(out, "cwd")
    assert "left-behind.txt" not in out and "scribble.txt" not in out
    assert "left False threads 1" in out
    # The first job's runner (with its endless thread) is gone, not parked for later use.
    assert wait_gone([int(field(first["output"], "pid"))]) == []


def test_an_empty_pool_grades_cold_and_is_refilled(pool_of, flagship, monkeypatch):
    # The exec'd cold path; with the zygote (default) an empty pool forks a fresh sandbox
    # instead, which tests/grader/test_zygote.py covers.
    monkeypatch.setenv("GRADER_POOL_ZYGOTE", "0")
    pool = pool_of(1)
    assert pool.wait_filled(FILL_S)
    held = pool.take()  # someone else's job has the only warm sandbox
    assert held is not None
    cold_runs = []
    original = LocalSandbox._run_cold
    monkeypatch.setattr(LocalSandbox, "_run_cold",
                        lambda self, job: cold_runs.append(job) or original(self, job))
    right = (REPO / "tests" / "docker" / "attacks" / "control_honest_right.py").read_text()
    phases: list[str] = []  # what the learner is told (the status API's "phase")
    try:
        doc = grade_code(flagship, right, sandbox="local", on_phase=phases.append)
        assert doc["status"] == "pass", doc["message"]
        assert len(cold_runs) == 1
        assert phases == ["starting"]  # a sandbox was started for this job
        assert held.alive()  # untouched by the cold job
        assert pool.wait_filled(FILL_S)  # and the pool made itself a new one meanwhile
        warm = grade_code(flagship, right, sandbox="local", on_phase=phases.append)
        assert warm["status"] == "pass" and len(cold_runs) == 1
        assert phases == ["starting"]  # a warm sandbox: nothing to wait for, nothing said
    finally:
        held.discard()


def test_a_crashed_warm_sandbox_is_never_handed_out_and_is_replaced(pool_of, flagship):
    pool = pool_of(1, "run")
    assert pool.wait_filled(FILL_S)
    crashed = pool._idle[0]
    os.killpg(crashed.pid, signal.SIGKILL)
    crashed.process.wait(timeout=10)
    doc = run_code(flagship, "print('still works')", sandbox="local")
    assert doc == {**doc, "status": "ok", "error": None}
    assert "still works" in doc["output"]
    assert pool.replaced >= 1
    assert pool.wait_filled(FILL_S)
    assert pool._idle[0] is not crashed and pool._idle[0].alive()


def test_a_warm_sandbox_ends_and_is_replaced_when_its_harness_dies_mid_job(pool_of, flagship):
    pool = pool_of(1, "run")
    assert pool.wait_filled(FILL_S)
    member = pool.take()
    assert isinstance(member, LocalMember)
    os.killpg(member.pid, signal.SIGKILL)  # the machine took it away between take and job
    doc = LocalSandbox()._run_warm(member, _job(flagship, "print(1)"), "run")
    assert doc["status"] == "error" and doc["error"]["kind"] == "internal", doc
    assert not member.alive() and not member.root.exists()


def _job(exercise: Exercise, code: str):
    from grader.sandboxes.base import Job

    return Job(exercise=exercise, code=code)


def test_exit_leaves_no_warm_process_behind(tmp_path):
    """A worker process that filled its pool and exits normally: every member is gone."""
    script = (
        "import os\n"
        "os.environ['GRADER_POOL_SIZE'] = '1'\n"
        "from grader.api import warm_up\n"
        "from grader.sandboxes.local_warm import local_pool\n"
        f"assert warm_up('local', wait_s={FILL_S})\n"
        "print(' '.join(str(m.pid) for m in local_pool()._idle), flush=True)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=FILL_S + 60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    harnesses = [int(pid) for pid in done.stdout.split()]
    assert harnesses
    assert wait_gone(harnesses) == []
    leftovers = subprocess.run(["pgrep", "-f", "grader.(sandboxes.warm_entry|runner)"],
                               capture_output=True, text=True, check=False).stdout.split()
    mine = [pid for pid in leftovers if _parent_chain_has(int(pid), harnesses)]
    assert mine == []


def _parent_chain_has(pid: int, ancestors: list[int]) -> bool:
    try:
        ppid = int(Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()[1])
    except (OSError, IndexError, ValueError):
        return False
    return ppid in ancestors


def test_a_forked_child_starts_its_own_pool_and_never_ends_its_parents(pool_of):
    pool = pool_of(1)
    assert pool.wait_filled(FILL_S)
    parents_member = pool._idle[0]
    child = os.fork()
    if child == 0:  # the child: a fresh registry, and its exit clean-up leaves the parent's alone
        code = 0 if local_pool() is not pool and not local_pool()._idle else 1
        resources.close_all()  # what the child's atexit hook runs
        os._exit(code)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert parents_member.alive()
