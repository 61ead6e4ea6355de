"""Docker sandbox tests: a real engine and the sandbox image, or a skip naming what is missing."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from grader.loader import Exercise, load_exercise

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "scripts" / "build-sandbox-image.sh"
SANDBOX_UIDS = (10001, 10002)  # grader and learner in the image (grader/Dockerfile)


@cache
def engine_problem() -> str | None:
    """Why docker tests cannot run here, or None when they can."""
    try:
        import docker
    except ImportError:
        return "the docker SDK is not installed"
    from grader.sandboxes.docker_image import image_name, image_state

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


def job_containers(client: Any) -> list[Any]:
    return client.containers.list(all=True, filters={"label": "learnai.job"})


def sandbox_processes() -> list[str]:
    """Host processes owned by the image's users: none may outlive a job."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        uid_line = next((line for line in text.splitlines() if line.startswith("Uid:")), "")
        if any(int(uid) in SANDBOX_UIDS for uid in uid_line.split()[1:]):
            found.append(f"{status.parent.name}: {text.splitlines()[0]}")
    return found


@pytest.fixture
def no_residue(client: Any) -> Iterator[None]:
    """After the test: no job container, no volume of ours, no sandbox-user process left."""
    volumes_before = {v.id for v in client.volumes.list()}
    yield
    assert job_containers(client) == [], "a job container was left behind"
    assert {v.id for v in client.volumes.list()} <= volumes_before, "a /grading volume leaked"
    assert sandbox_processes() == [], "a sandbox process outlived its job"
