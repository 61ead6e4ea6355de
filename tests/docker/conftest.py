"""Docker sandbox tests: a real engine and the sandbox image, or a skip naming what is missing."""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from grader.loader import Exercise, load_exercise

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "scripts" / "build-sandbox-image.sh"
SANDBOX_UIDS = (10001, 10002)  # grader and learner in the image (grader/Dockerfile)


def is_sandbox_uid(uid: int) -> bool:
    from grader.sandboxes.docker.settings import RUNNER_UIDS

    return uid in SANDBOX_UIDS or uid in RUNNER_UIDS


@cache
def engine_problem() -> str | None:
    """Why docker tests cannot run here, or None when they can."""
    try:
        import docker
    except ImportError:
        return "the docker SDK is not installed"
    from grader.sandboxes.docker.image import image_name, image_state

    try:
        client = docker.from_env(timeout=5)
        client.ping()
    except Exception as exc:  # noqa: BLE001 -- any failure means: no engine here
        return f"no Docker engine answers ({type(exc).__name__})"
    state = image_state(client)
    if state != "current" and os.environ.get("LEARNAI_BUILD_SANDBOX_IMAGE") == "1":
        subprocess.run([str(BUILD)], check=True, cwd=REPO)
        state = image_state(client)
    if state == "missing":
        return f"sandbox image {image_name()} is missing: run `make sandbox-image`"
    if state == "stale":
        return (f"sandbox image {image_name()} was built from other grader code: run "
                "`make sandbox-image` (or set LEARNAI_BUILD_SANDBOX_IMAGE=1)")
    return None


@pytest.fixture(autouse=True)
def _needs_engine(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("docker") and (problem := engine_problem()):
        pytest.skip(problem)


@pytest.fixture(scope="session")
def client() -> Any:
    import docker

    return docker.from_env(timeout=60)


@pytest.fixture(scope="session")
def flagship() -> Exercise:
    """amp-train-one-epoch as learners meet it (30 s): honest jobs must pass on a busy host."""
    return load_exercise(REPO / "exercises" / "amp-train-one-epoch")


@pytest.fixture(scope="session")
def quick_flagship_exercise(quick_flagship: Path) -> Exercise:
    """amp-train-one-epoch with an 8 s limit (see tests/conftest.py), for runs meant to time out."""
    return load_exercise(quick_flagship)


@pytest.fixture(scope="session")
def roomy_flagship_exercise(roomy_flagship: Path) -> Exercise:
    """amp-train-one-epoch with the platform's largest limit, for runs not meant to time out."""
    return load_exercise(roomy_flagship)


@pytest.fixture
def backstop_kills(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the containers the backend killed with its wall-clock backstop in this test.

    The backend kills a container only when the harness inside overran the backstop
    (grader/sandboxes/docker/sandbox.py); every other ending comes from the job's own limits.
    Asking whether that kill happened, rather than timing the job, keeps such a check
    true on a host of any speed.
    """
    from docker.models.containers import Container

    killed: list[str] = []
    real_kill = Container.kill

    def kill(self: Container, *args: Any, **kwargs: Any) -> Any:
        killed.append(self.name)
        return real_kill(self, *args, **kwargs)

    monkeypatch.setattr(Container, "kill", kill)
    return killed


def job_containers(client: Any) -> list[Any]:
    """Job containers this test process made (other people's jobs may share the engine).

    Idle members of this process's warm pools are not leftovers: they wait for a job and
    are removed at exit (tests/docker/test_warm_pool.py checks that).
    """
    from grader.sandboxes.docker.settings import owner
    from grader.sandboxes.docker.warm import idle_container_ids

    ours = client.containers.list(all=True, ignore_removed=True, filters={"label": f"learnai.owner={owner()}"})
    idle = idle_container_ids()  # after listing: a member the pool is starting now is in it
    return [c for c in ours if c.id not in idle]


def _container_of(pid: str) -> str | None:
    try:
        text = Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return None
    found = re.search(r"[0-9a-f]{64}", text)
    return found.group(0) if found else None


def leaked_processes(client: Any) -> list[str]:
    """Host processes of the image's users whose container is gone: none may outlive a job.

    Processes of containers still there belong to jobs in flight (another process's). A
    process of a container being removed right now (another test process's) may linger a
    moment: a suspect counts only if it is still there after a grace period.
    """
    found = _orphans(client)
    for _ in range(10):
        if not found:
            break
        time.sleep(1)
        again = _orphans(client)
        found = [line for line in found if line in again]
    return found


def _orphans(client: Any) -> list[str]:
    import docker.errors

    leaked = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        uid_line = next((line for line in text.splitlines() if line.startswith("Uid:")), "")
        if not any(is_sandbox_uid(int(uid)) for uid in uid_line.split()[1:]):
            continue
        container = _container_of(status.parent.name)
        try:
            if container and client.containers.get(container):
                continue
        except docker.errors.NotFound:
            pass
        leaked.append(f"{status.parent.name}: {text.splitlines()[0]}")
    return leaked


def leaked_volumes(client: Any, before: set[str]) -> set[str]:
    """Volumes made since `before` that no container mounts any more, and that stay so.

    The engine is shared (other test processes, other people's jobs): a job's volume goes
    a moment after its container, so a suspect counts only if it is still there, unmounted,
    after a grace period. A real leak stays for good.
    """
    def suspects() -> set[str]:
        new = {v.id for v in client.volumes.list()} - before
        mounted = {m.get("Name") for c in client.containers.list(all=True, ignore_removed=True)
                   for m in c.attrs.get("Mounts", [])}
        return new - mounted

    found = suspects()
    for _ in range(10):
        if not found:
            break
        time.sleep(1)
        found &= suspects()
    return found


@pytest.fixture
def no_residue(client: Any) -> Iterator[None]:
    """After the test: no job container of ours, no volume of ours, no sandbox process left."""
    volumes_before = {v.id for v in client.volumes.list()}
    yield
    assert job_containers(client) == [], "a job container was left behind"
    assert leaked_volumes(client, volumes_before) == set(), "a /grading volume leaked"
    assert leaked_processes(client) == [], "a sandbox process outlived its job"
