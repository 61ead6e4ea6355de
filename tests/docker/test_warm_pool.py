"""The docker warm pool (slot containers, or warm per-job ones): hardened like a cold job, replaced, removed at exit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.api import run_code
from grader.loader import Exercise
from grader.sandboxes import pool as pools
from grader.sandboxes.docker import DockerSandbox
from grader.sandboxes.docker.settings import LABEL_SLOT, LABEL_WARM, SLOT_MEMORY_MB, SLOT_PIDS, container_kwargs

REPO = Path(__file__).resolve().parents[2]
FILL_S = 300
pytestmark = [pytest.mark.docker, pytest.mark.slow]

# HostConfig fields that make the hardening; a warm container must match a cold job's.
HARDENING = ("NetworkMode", "ReadonlyRootfs", "CapDrop", "CapAdd", "SecurityOpt", "PidsLimit",
             "Memory", "MemorySwap", "NanoCpus", "IpcMode", "Init", "ShmSize", "Tmpfs")


@pytest.fixture
def docker_pool(monkeypatch: pytest.MonkeyPatch, flagship: Exercise) -> Iterator[pools.WarmPool]:
    pools.close_all()
    monkeypatch.setenv("GRADER_POOL_SIZE", "1")
    pool = DockerSandbox().warm_pool(flagship.config.limits)
    yield pool
    pools.close_all()


@pytest.fixture
def docker_run_pool(monkeypatch: pytest.MonkeyPatch, flagship: Exercise) -> Iterator[pools.WarmPool]:
    """The warm containers Runs (run_code) take, apart from grading's."""
    pools.close_all()
    monkeypatch.setenv("GRADER_RUN_POOL_SIZE", "1")
    pool = DockerSandbox().warm_pool(flagship.config.limits, lane="run")
    yield pool
    pools.close_all()


def test_a_warm_container_is_hardened_exactly_like_a_cold_one(client: Any, docker_pool, flagship):
    assert docker_pool.wait_filled(FILL_S)
    member = docker_pool._idle[0]
    member.container.reload()
    warm = member.container.attrs["HostConfig"]
    assert member.container.labels[LABEL_WARM] == "1"
    cold_kwargs = container_kwargs(flagship.config.limits, job_id="x" * 16, deadline=0, max_idle_s=1)
    cold = client.api.create_host_config(**{
        key: value for key, value in cold_kwargs.items()
        if key in ("network_mode", "read_only", "cap_drop", "cap_add", "security_opt", "pids_limit",
                   "mem_limit", "memswap_limit", "nano_cpus", "ipc_mode", "init", "shm_size", "tmpfs")})
    # A slot container (the default mode) also holds its supervisor: room for it, nothing else differs.
    slot = member.container.labels.get(LABEL_SLOT) == "1"
    margins = {"Memory": SLOT_MEMORY_MB << 20, "MemorySwap": SLOT_MEMORY_MB << 20, "PidsLimit": SLOT_PIDS}
    for field in HARDENING:
        expected = cold.get(field) + margins[field] if slot and field in margins else cold.get(field)
        assert warm.get(field) == expected, field
    assert member.container.attrs["Config"]["User"] == "0:0"  # the entry drops to grader itself


LEAVES_STATE = """
import os, socket, subprocess
try:
    open("/tmp/left-behind", "w").write("first learner")
except PermissionError:
    pass  # the job jail keeps it out of /tmp (a slot container's runner)
subprocess.Popen(["sleep", "3600"], start_new_session=True)  # would outlive a reused sandbox
print("host", socket.gethostname(), "uid", os.getuid())
"""

LOOKS_AROUND = """
import os
def command(pid):
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        return b""
import socket
print("host", socket.gethostname(), "uid", os.getuid())
print("left", os.path.exists("/tmp/left-behind"))
try:
    pids = os.listdir("/proc")
except PermissionError:
    pids = []  # the job jail keeps /proc out of reach
print("sleepers", sum(1 for p in pids if p.isdigit() and command(p).startswith(b"sleep")))
"""


def field(output: str, name: str) -> str:
    found = re.search(rf"\b{name} (\S+)", output)
    assert found, output
    return found.group(1)


def test_one_job_per_container_and_the_next_learner_sees_nothing(client: Any, docker_run_pool, flagship,
                                                                  no_residue):
    assert docker_run_pool.wait_filled(FILL_S)
    first = run_code(flagship, LEAVES_STATE, sandbox="docker")
    assert first["status"] == "ok", first
    assert docker_run_pool.wait_filled(FILL_S)
    second = run_code(flagship, LOOKS_AROUND, sandbox="docker")
    assert second["status"] == "ok", second
    assert field(first["output"], "host") != field(second["output"], "host")  # another container
    assert field(first["output"], "uid") != field(second["output"], "uid")  # another learner uid
    assert "left False" in second["output"] and "sleepers 0" in second["output"]
    first_host = field(first["output"], "host")  # a container's hostname is its id's start
    assert not any(c.id.startswith(first_host) for c in client.containers.list(all=True, ignore_removed=True))


def test_a_dead_warm_container_is_replaced_and_the_job_still_graded(docker_run_pool, flagship, no_residue):
    assert docker_run_pool.wait_filled(FILL_S)
    dead = docker_run_pool._idle[0]
    dead.container.kill()
    doc = run_code(flagship, "print('graded anyway')", sandbox="docker")
    assert doc["status"] == "ok" and "graded anyway" in doc["output"], doc
    assert docker_run_pool.replaced >= 1
    assert docker_run_pool.wait_filled(FILL_S)
    assert docker_run_pool._idle[0] is not dead


def test_a_worker_that_exits_leaves_no_warm_container(client: Any, flagship):
    script = (
        "import os\n"
        "os.environ['GRADER_POOL_SIZE'] = '1'\n"
        "from grader.sandboxes.docker import DockerSandbox\n"
        "from grader.sandboxes.docker.settings import owner\n"
        f"assert DockerSandbox().warm_pool().wait_filled({FILL_S})\n"
        "print(owner(), flush=True)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=FILL_S + 60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    worker = done.stdout.strip()
    assert worker
    left = client.containers.list(all=True, ignore_removed=True, filters={"label": f"learnai.owner={worker}"})
    assert left == []


def test_a_warm_container_whose_process_was_killed_ends_itself(client: Any, flagship):
    # kill -9: no atexit, no janitor, no other worker; only the stdin lifeline can stop it.
    script = (
        "import os, time\n"
        "os.environ['GRADER_POOL_SIZE'] = '1'\n"
        "from grader.sandboxes.docker import DockerSandbox\n"
        "from grader.sandboxes.docker.settings import owner\n"
        f"assert DockerSandbox().warm_pool().wait_filled({FILL_S})\n"
        "print(owner(), flush=True)\n"
        "time.sleep(600)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    worker = ""
    try:
        worker = proc.stdout.readline().strip()
        assert worker, "the pool never filled"
        mine = {"label": f"learnai.owner={worker}"}
        assert [c.status for c in client.containers.list(all=True, ignore_removed=True, filters=mine)] == ["running"]
        proc.kill()
        proc.wait()
        killed = time.monotonic()
        while time.monotonic() - killed < 60:
            if all(c.status != "running" for c in client.containers.list(all=True, ignore_removed=True, filters=mine)):
                break
            time.sleep(0.2)
        ended = time.monotonic() - killed
        print(f"FIGURE warm container ended itself {ended:.1f} s after its process was killed")
        assert ended < 60
    finally:
        proc.kill()
        if worker:  # only this test's container: others' are theirs
            mine = {"label": f"learnai.owner={worker}"}
            for container in client.containers.list(all=True, ignore_removed=True, filters=mine):
                container.remove(force=True, v=True)
