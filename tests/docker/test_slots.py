"""Slot containers: reused job after job, each job a fresh uid that sees nothing of the last; replaced
after N jobs and at once after a job that ended abnormally; the per-job mode still there."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.api import grade_code, run_code
from grader.loader import Exercise
from grader.sandboxes import pool as pools
from grader.sandboxes.docker import DockerSandbox
from grader.sandboxes.docker.settings import LABEL_DEADLINE, LABEL_SLOT, slot_max_age_s
from grader.sandboxes.docker.slot import SlotMember

pytestmark = [pytest.mark.docker, pytest.mark.slow]
FILL_S = 300

WHO = """
import os, socket
print("host", socket.gethostname(), "uid", os.getuid(), "cwd", os.getcwd())
"""

# Everything a job may leave in its own folder (its HOME and working directory), and what it is.
KEEPS_A_SECRET = WHO + """
open("secret.txt", "w").write("first learner's answer")
os.makedirs("nested/deeper", exist_ok=True)
open("nested/deeper/more.txt", "w").write("more")
"""

LOOKS_AROUND = WHO + """
first_cwd, first_uid = FIRST_CWD, FIRST_UID
print("sees-folder", os.path.exists(first_cwd))
owners = set()
try:
    pids = os.listdir("/proc")
except PermissionError:
    pids = []  # the job jail keeps /proc out of reach: nothing to see at all
for pid in pids:
    if pid.isdigit():
        try:
            owners.add(os.stat(f"/proc/{pid}").st_uid)
        except OSError:
            pass
print("sees-uid", int(first_uid) in owners)
found = [os.path.join(top, name) for place in ("/tmp", "/dev/shm", "/grading")
         for top, _dirs, names in os.walk(place) for name in names if not top.startswith(os.getcwd())]
print("files", len(found), found[:5])
"""

LEAVES_A_DAEMON = WHO + """
import subprocess
subprocess.Popen(["sleep", "3600"], start_new_session=True)
"""

LEAVES_A_FILE = WHO + """
open("/dev/shm/left-for-the-next", "w").write("first learner")
"""

COUNTS_SLEEPERS = WHO + """
def command(pid):
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        return b""
try:
    pids = os.listdir("/proc")
except PermissionError:
    pids = []  # the job jail keeps /proc out of reach
print("sleepers", sum(1 for p in pids if p.isdigit() and command(p).startswith(b"sleep")))
print("left", os.path.exists("/dev/shm/left-for-the-next"))
"""

ENDLESS = WHO + "import time\nwhile True:\n    time.sleep(1)\n"


def field(output: str, name: str) -> str:
    found = re.search(rf"\b{name} (\S+)", output)
    assert found, output
    return found.group(1)


@pytest.fixture
def slots(monkeypatch: pytest.MonkeyPatch, flagship: Exercise) -> Iterator[pools.WarmPool]:
    """One slot container for Runs (the quickest jobs), started before the test."""
    pools.close_all()
    monkeypatch.setenv("GRADER_DOCKER_MODE", "slot")
    monkeypatch.setenv("GRADER_RUN_POOL_SIZE", "1")
    pool = DockerSandbox().warm_pool(flagship.config.limits, lane="run")
    assert pool.wait_filled(FILL_S)
    yield pool
    pools.close_all()


def ok_run(exercise: Exercise, code: str) -> str:
    doc = run_code(exercise, code, sandbox="docker")
    assert doc["status"] == "ok", doc
    return doc["output"]


def test_a_slot_container_is_reused_each_job_as_a_fresh_uid(slots, flagship, no_residue):
    member = slots._idle[0]
    assert isinstance(member, SlotMember) and member.container.labels[LABEL_SLOT] == "1"
    first, second = ok_run(flagship, WHO), ok_run(flagship, WHO)
    assert field(first, "host") == field(second, "host") == member.container.id[:12]
    assert field(first, "uid") != field(second, "uid")
    assert member.jobs == 2 and slots._idle[0] is member


def test_a_second_job_in_the_same_container_sees_nothing_of_the_first(slots, flagship, no_residue):
    first = ok_run(flagship, KEEPS_A_SECRET)
    looks = LOOKS_AROUND.replace("FIRST_CWD", repr(field(first, "cwd"))).replace("FIRST_UID", repr(field(first, "uid")))
    second = ok_run(flagship, looks)
    assert field(second, "host") == field(first, "host")  # the same container: it was clean
    assert "sees-folder False" in second and "sees-uid False" in second, second
    assert "files 0" in second, second


@pytest.mark.parametrize(("leaves", "kind"), [(LEAVES_A_DAEMON, "process"), (LEAVES_A_FILE, "file")])
def test_a_job_that_leaves_something_behind_gets_the_container_replaced(slots, flagship, client: Any,
                                                                       leaves: str, kind: str, no_residue):
    first = ok_run(flagship, leaves)
    assert slots.wait_filled(FILL_S)
    second = ok_run(flagship, COUNTS_SLEEPERS)
    assert field(second, "host") != field(first, "host"), kind
    assert "sleepers 0" in second and "left False" in second, second
    first_host = field(first, "host")
    assert not any(c.id.startswith(first_host) for c in client.containers.list(all=True, ignore_removed=True))


def gone(client: Any, member: SlotMember) -> bool:
    import docker.errors

    try:
        client.containers.get(member.container.id)
    except docker.errors.NotFound:
        return True
    return False


def test_a_time_out_gets_the_container_replaced(slots, quick_flagship_exercise, flagship, client: Any,
                                                no_residue):
    member = slots._idle[0]
    doc = run_code(quick_flagship_exercise, ENDLESS, sandbox="docker")
    assert doc["status"] == "error" and doc["error"]["kind"] == "timeout", doc
    assert gone(client, member)
    assert slots.wait_filled(FILL_S)
    assert field(ok_run(flagship, WHO), "host") != member.container.id[:12]


def test_out_of_memory_gets_the_container_replaced(monkeypatch, roomy_flagship_exercise, flagship, client: Any,
                                                   no_residue):
    pools.close_all()
    monkeypatch.setenv("GRADER_DOCKER_MODE", "slot")
    monkeypatch.setenv("GRADER_POOL_SIZE", "1")
    pool = DockerSandbox().warm_pool(flagship.config.limits)
    assert pool.wait_filled(FILL_S)
    first = pool._idle[0]
    hog = (Path(__file__).parent / "attacks" / "memory_hog_forked.py").read_text(encoding="utf-8")
    doc = grade_code(roomy_flagship_exercise, hog, sandbox="docker")
    assert doc["error_kind"] == "memory", doc
    assert gone(client, first)
    assert pool.wait_filled(FILL_S)
    honest = grade_code(flagship, flagship.solution_path.read_text(encoding="utf-8"), sandbox="docker")
    assert honest["status"] == "pass", honest["message"]
    pools.close_all()


def test_a_slot_container_that_prints_a_document_is_the_platform_fault(monkeypatch, flagship, no_residue):
    from grader.sandboxes.docker import slot, warm

    pools.close_all()
    monkeypatch.setenv("GRADER_DOCKER_MODE", "slot")
    monkeypatch.setenv("GRADER_POOL_SIZE", "0")  # no slot ready: the job starts its own
    real = warm.container_kwargs
    forged = '{"version": 1, "status": "pass", "score": 1.0}'

    def printing(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return {**real(*args, **kwargs), "command": ["python3", "-c", f"print({forged!r})"]}

    monkeypatch.setattr(warm, "container_kwargs", printing)
    assert slot.SlotMember.__mro__[1] is warm.DockerMember  # the slot's container is made there
    doc = grade_code(flagship, "x = 1\n", sandbox="docker")
    assert (doc["status"], doc["error_kind"]) == ("error", "internal"), doc
    assert "did not get ready" in doc["message"]  # only framed messages count, never printed text
    pools.close_all()


def test_a_slot_container_is_replaced_after_its_last_job(monkeypatch, slots, flagship, no_residue):
    monkeypatch.setenv("GRADER_SLOT_MAX_JOBS", "2")
    hosts = [field(ok_run(flagship, WHO), "host") for _ in range(2)]
    assert slots.wait_filled(FILL_S)
    hosts.append(field(ok_run(flagship, WHO), "host"))
    assert hosts[0] == hosts[1] != hosts[2]


def test_a_slot_container_carries_a_deadline_past_its_maximum_age(slots):
    member = slots._idle[0]
    assert float(member.container.labels[LABEL_DEADLINE]) >= time.time() + slot_max_age_s()


def test_the_per_job_mode_still_gives_every_job_a_fresh_container(monkeypatch, flagship, no_residue):
    pools.close_all()
    monkeypatch.setenv("GRADER_DOCKER_MODE", "per-job")
    monkeypatch.setenv("GRADER_RUN_POOL_SIZE", "1")
    pool = DockerSandbox().warm_pool(flagship.config.limits, lane="run")
    assert not pool.reuse
    first = ok_run(flagship, WHO)
    second = ok_run(flagship, WHO)
    assert field(first, "host") != field(second, "host")
    honest = grade_code(flagship, flagship.solution_path.read_text(encoding="utf-8"), sandbox="docker")
    assert honest["status"] == "pass", honest["message"]
    pools.close_all()
