"""The docker backend's own duties: auto-detection, refusals, platform faults, janitor, slots."""

from __future__ import annotations

import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import docker.errors
import pytest

from grader.api import warm_up
from grader.loader import Exercise, load_exercise
from grader.sandboxes import resources
from grader.sandboxes.base import Job
from grader.sandboxes.docker import engine as engines
from grader.sandboxes.docker import sandbox as backend
from grader.sandboxes.docker import warm
from grader.sandboxes.docker.gpus import GpuScheduler
from grader.sandboxes.docker.janitor import stale_containers, sweep
from grader.sandboxes.docker.settings import owner
from grader.sandboxes.pool import close_all
from grader.schema import MAX_TIME_S

REPO = Path(__file__).resolve().parents[2]
ATTACKS = Path(__file__).parent / "attacks"
pytestmark = pytest.mark.docker


def flagship_variant(tmp_path: Path, *, gpu: str = "optional", time_s: float = MAX_TIME_S,
                     exercise: str = "amp-train-one-epoch") -> Exercise:
    """A copy of an exercise (the flagship by default) with another GPU mode or time limit.

    The default limit is the platform's largest: a run not meant to time out must not
    time out because the host is busy.
    """
    target = tmp_path / exercise
    shutil.copytree(REPO / "exercises" / exercise, target)
    config = target / "exercise.toml"
    text = re.sub(r'(?m)^gpu = .*$', f'gpu = "{gpu}"', config.read_text())
    config.write_text(re.sub(r"(?m)^time_s = .*$", f"time_s = {time_s:g}", text))
    return load_exercise(target)


@pytest.fixture
def fresh_engine(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A backend state of its own, so a test may change its slots or GPUs."""
    state = engines.Engine()
    monkeypatch.setitem(resources._shared, "docker engine", state)
    return state


def test_auto_finds_the_engine_and_the_image(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engines, "_available", (0.0, False))
    assert engines.docker_available()
    monkeypatch.setattr(engines, "_available", (0.0, False))
    monkeypatch.setenv("GRADER_SANDBOX_IMAGE", "learnai-no-such-image:never")
    assert not engines.docker_available()
    monkeypatch.setattr(engines, "_available", (0.0, False))
    monkeypatch.delenv("GRADER_SANDBOX_IMAGE")
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent.sock")
    assert not engines.docker_available()


def test_a_missing_image_is_the_platform_fault(monkeypatch: pytest.MonkeyPatch,
                                               no_residue: None) -> None:
    # A warm container of the real image is waiting (an earlier job left the pool full, as in
    # a CI run where this failed): it must not be handed the job meant for the missing image.
    monkeypatch.setenv("GRADER_POOL_SIZE", "1")
    assert warm_up("docker", wait_s=180), "the real image's pool did not fill"
    monkeypatch.setenv("GRADER_SANDBOX_IMAGE", "learnai-no-such-image:never")
    exercise = load_exercise(REPO / "exercises" / "amp-train-one-epoch")
    try:
        doc = backend.DockerSandbox().run(Job(exercise=exercise, code="x = 1\n"))
    finally:
        close_all()  # else the missing image's pool retries its start every 5 s until exit
    assert (doc["status"], doc["error_kind"]) == ("error", "internal")
    assert "not your fault" in doc["message"]


@pytest.mark.parametrize("lang, words", [("en", "needs a GPU"), ("ja", "GPU が必要")])
def test_gpu_required_without_gpus_is_refused(tmp_path: Path, fresh_engine: Any, lang: str,
                                              words: str) -> None:
    fresh_engine.gpus = GpuScheduler([])
    exercise = flagship_variant(tmp_path, gpu="required")
    doc = backend.DockerSandbox().run(Job(exercise=exercise, code="x = 1\n", lang=lang))
    assert (doc["status"], doc["error_kind"]) == ("error", "internal")
    assert words in doc["message"]


def test_a_failed_gpu_request_is_the_platform_fault(tmp_path: Path, fresh_engine: Any,
                                                     no_residue: None) -> None:
    if "nvidia" in (fresh_engine.client.info().get("Runtimes") or {}):
        pytest.skip("this host has the NVIDIA runtime: the request would succeed")
    fresh_engine.gpus = GpuScheduler(["0"])  # pretend: the engine cannot attach it
    exercise = flagship_variant(tmp_path, gpu="required")
    doc = backend.DockerSandbox().run(Job(exercise=exercise, code="x = 1\n"))
    assert (doc["status"], doc["error_kind"]) == ("error", "internal")
    assert "GPU could not be attached" in doc["message"]
    assert fresh_engine.gpus.free == ["0"]  # handed back


def test_the_janitor_removes_only_what_is_past_its_deadline(client: Any) -> None:
    old = client.containers.create("learnai-sandbox:latest", ["true"], labels={
        "learnai.job": "janitor-old", "learnai.deadline": str(int(time.time()) - 3600)})
    new = client.containers.create("learnai-sandbox:latest", ["true"], labels={
        "learnai.job": "janitor-new", "learnai.deadline": str(int(time.time()) + 3600)})
    try:
        assert old.id in {c.id for c in stale_containers(client)}
        assert new.id not in {c.id for c in stale_containers(client)}
        assert sweep(client) >= 1
        assert {c.id for c in client.containers.list(all=True, ignore_removed=True)} & {old.id, new.id} == {new.id}
    finally:
        for container in (old, new):
            try:
                container.remove(force=True, v=True)
            except Exception:  # noqa: BLE001, S110 -- already gone is fine
                pass


@pytest.mark.slow
def test_jobs_beyond_the_slots_wait_their_turn(fresh_engine: Any, tmp_path: Path,
                                               no_residue: None) -> None:
    fresh_engine.slots = threading.BoundedSemaphore(1)
    exercise = flagship_variant(tmp_path, exercise="tensors-dtype-memory", gpu="no")
    code = (exercise.path / "solution.py").read_text()
    running: list[int] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            listed = fresh_engine.client.containers.list(  # ours: the engine is shared
                ignore_removed=True, filters={"label": ["learnai.job", f"learnai.owner={owner()}"],
                                              "status": "running"})
            # Warm sandboxes waiting for a job hold no slot; only those grading count.
            idle = warm.idle_container_ids()  # after listing, as tests/docker/conftest.py does
            running.append(len([c for c in listed if c.id not in idle]))
            time.sleep(0.2)

    watcher = threading.Thread(target=watch)
    watcher.start()
    docs: list[dict[str, Any]] = []
    jobs = [threading.Thread(target=lambda: docs.append(
        backend.DockerSandbox().run(Job(exercise=exercise, code=code)))) for _ in range(2)]
    for job in jobs:
        job.start()
    for job in jobs:
        job.join(timeout=300)
    done.set()
    watcher.join()
    assert [d["status"] for d in docs] == ["pass", "pass"]
    assert max(running) == 1


def running_job(client: Any) -> Any | None:
    """The one job container of this process that is running now, if any."""

    found = client.containers.list(ignore_removed=True, filters={"label": f"learnai.owner={owner()}",
                                            "status": "running"})
    idle = warm.idle_container_ids()  # warm sandboxes waiting for a job are not "the job"
    grading = [c for c in found if c.id not in idle]
    return grading[0] if grading else None


def pids_of(container: Any) -> int:
    stats = container.stats(stream=False, one_shot=True)
    return int((stats.get("pids_stats") or {}).get("current") or 0)


@pytest.mark.slow
def test_a_fork_bomb_does_not_starve_a_concurrent_job(fresh_engine: Any, tmp_path: Path,
                                                       roomy_flagship_exercise: Exercise,
                                                       no_residue: None) -> None:
    """Per-uid counts are host-wide: with one learner uid for all jobs this honest job,
    which forks DataLoader workers, failed with EAGAIN while another job's bomb ran.

    The honest job starts once the bomb holds its full count of processes (asked of the
    engine, not guessed with a sleep) and must end while the bomb still runs; then the bomb
    is killed rather than waited out (its own verdict is test_attack[fork_bomb]'s concern).
    """
    fresh_engine.slots = threading.BoundedSemaphore(2)
    bomb_exercise = flagship_variant(tmp_path)  # the largest limit: it outlives the honest job
    bomb = (ATTACKS / "fork_bomb.py").read_text()
    honest = (ATTACKS / "control_dataloader_workers.py").read_text()
    docs: dict[str, dict[str, Any]] = {}

    def run(name: str, exercise: Exercise, code: str) -> None:
        docs[name] = backend.DockerSandbox().run(Job(exercise=exercise, code=code))

    bombing = threading.Thread(target=run, args=("bomb", bomb_exercise, bomb))
    bombing.start()
    container, full = None, bomb_exercise.config.limits.processes
    while bombing.is_alive() and not (container and pids_of(container) >= full):
        container = container or running_job(fresh_engine.client)
        time.sleep(0.5)
    assert container is not None and bombing.is_alive(), docs.get("bomb")
    run("honest", roomy_flagship_exercise, honest)
    bomb_outlived_honest = bombing.is_alive()
    try:
        container.kill()
    except docker.errors.APIError:
        # At load 160 the engine gave up waiting for a container of 256 processes to die
        # ("did not receive an exit event"); it dies all the same, or at its own limit.
        pass
    bombing.join(timeout=600)
    assert not bombing.is_alive()
    assert bomb_outlived_honest, "the bomb ended before the honest job: nothing was tested"
    assert docs["bomb"]["status"] == "error"
    assert docs["honest"]["status"] == "pass", docs["honest"]["message"][-2000:]


def hanging_exercise(tmp_path: Path) -> Exercise:
    """A copy of the flagship whose own (trusted) test never ends: only our kill stops it."""
    exercise = flagship_variant(tmp_path, time_s=5)
    tests = exercise.path / "tests"
    for test in tests.glob("test_*.py"):
        test.unlink()
    (tests / "test_hang.py").write_text("import time\n\n\ndef test_hang():\n"
                                        "    time.sleep(3600)\n")
    return exercise


def test_the_wall_clock_kill_is_a_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          backstop_kills: list[str], no_residue: None) -> None:
    monkeypatch.setattr(backend, "wall_limit_s", lambda limits: 12)
    exercise = hanging_exercise(tmp_path)
    solution = (exercise.path / "solution.py").read_text()
    doc = backend.DockerSandbox().run(Job(exercise=exercise, code=solution, lang="ja"))
    assert (doc["status"], doc["error_kind"]) == ("error", "timeout")
    assert "秒" in doc["message"]
    # The backstop ended it (not the hour-long sleep): asked of the backend, not timed.
    assert len(backstop_kills) == 1


class _NoWarmPool:
    """A pool with nothing warm: every job starts a container of its own."""

    def take(self, on_wait: Any = None) -> None:
        return None

    def release(self, member: Any) -> None:
        member.discard()  # as a WarmPool does with a member it never lent


def test_a_harness_that_writes_nothing_is_the_platform_fault(
        monkeypatch: pytest.MonkeyPatch, flagship: Exercise, no_residue: None) -> None:
    real = warm.container_kwargs

    def silent(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return {**real(*args, **kwargs), "command": ["python3", "-c", "print('{\"version\": 1}')"]}

    monkeypatch.setenv("GRADER_DOCKER_MODE", "per-job")  # (slot containers: tests/docker/test_slots.py)
    monkeypatch.setattr(warm, "container_kwargs", silent)
    # A warm container was started with the real command: this job must start its own.
    monkeypatch.setattr(backend, "docker_pool", lambda *args, **kwargs: _NoWarmPool())
    doc = backend.DockerSandbox().run(Job(exercise=flagship, code="x = 1\n"))
    assert (doc["status"], doc["error_kind"]) == ("error", "internal")
    assert "no results file" in doc["message"]  # stdout is never read as a verdict
