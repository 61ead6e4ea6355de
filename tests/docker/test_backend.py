"""The docker backend's own duties: auto-detection, refusals, platform faults, janitor, slots."""

from __future__ import annotations

import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from grader.loader import Exercise, load_exercise
from grader.sandboxes import docker as backend
from grader.sandboxes.base import Job
from grader.sandboxes.docker_gpus import GpuScheduler
from grader.sandboxes.docker_janitor import stale_containers, sweep

REPO = Path(__file__).resolve().parents[2]
ATTACKS = Path(__file__).parent / "attacks"
pytestmark = pytest.mark.docker


def flagship_variant(tmp_path: Path, *, gpu: str = "optional", time_s: int = 30) -> Exercise:
    """A copy of amp-train-one-epoch with another GPU mode or time limit."""
    target = tmp_path / "amp-train-one-epoch"
    shutil.copytree(REPO / "exercises" / "amp-train-one-epoch", target)
    config = target / "exercise.toml"
    text = re.sub(r'(?m)^gpu = .*$', f'gpu = "{gpu}"', config.read_text())
    config.write_text(re.sub(r"(?m)^time_s = .*$", f"time_s = {time_s}", text))
    return load_exercise(target)


@pytest.fixture
def fresh_engine(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A backend state of its own, so a test may change its slots or GPUs."""
    state = backend._Engine()
    monkeypatch.setattr(backend, "_engine", state)
    return state


def test_auto_finds_the_engine_and_the_image(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backend, "_available", (0.0, False))
    assert backend.docker_available()
    monkeypatch.setattr(backend, "_available", (0.0, False))
    monkeypatch.setenv("GRADER_SANDBOX_IMAGE", "learnai-no-such-image:never")
    assert not backend.docker_available()
    monkeypatch.setattr(backend, "_available", (0.0, False))
    monkeypatch.delenv("GRADER_SANDBOX_IMAGE")
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent.sock")
    assert not backend.docker_available()


def test_a_missing_image_is_the_platform_fault(monkeypatch: pytest.MonkeyPatch,
                                               no_residue: None) -> None:
    monkeypatch.setenv("GRADER_SANDBOX_IMAGE", "learnai-no-such-image:never")
    exercise = load_exercise(REPO / "exercises" / "amp-train-one-epoch")
    doc = backend.DockerSandbox().run(Job(exercise=exercise, code="x = 1\n"))
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
        assert {c.id for c in client.containers.list(all=True)} & {old.id, new.id} == {new.id}
    finally:
        for container in (old, new):
            try:
                container.remove(force=True, v=True)
            except Exception:  # noqa: BLE001, S110 -- already gone is fine
                pass


@pytest.mark.slow
def test_jobs_beyond_the_slots_wait_their_turn(fresh_engine: Any, no_residue: None) -> None:
    fresh_engine.slots = threading.BoundedSemaphore(1)
    exercise = load_exercise(REPO / "exercises" / "tensors-dtype-memory")
    code = (exercise.path / "solution.py").read_text()
    running: list[int] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            running.append(len(fresh_engine.client.containers.list(
                filters={"label": "learnai.job", "status": "running"})))
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


@pytest.mark.slow
def test_a_fork_bomb_does_not_starve_a_concurrent_job(fresh_engine: Any, flagship: Exercise,
                                                       tmp_path: Path, no_residue: None) -> None:
    """Per-uid counts are host-wide: with one learner uid for all jobs this honest job,
    which forks DataLoader workers, failed with EAGAIN while another job's bomb ran."""
    fresh_engine.slots = threading.BoundedSemaphore(2)
    slow_bomb = flagship_variant(tmp_path, time_s=20)
    bomb = (ATTACKS / "fork_bomb.py").read_text()
    honest = (ATTACKS / "control_dataloader_workers.py").read_text()
    docs: dict[str, dict[str, Any]] = {}

    def run(name: str, exercise: Exercise, code: str) -> None:
        docs[name] = backend.DockerSandbox().run(Job(exercise=exercise, code=code))

    bombing = threading.Thread(target=run, args=("bomb", slow_bomb, bomb))
    bombing.start()
    time.sleep(8)  # the bomb has filled its pids by now
    run("honest", flagship, honest)
    bombing.join(timeout=300)
    assert docs["bomb"]["error_kind"] == "timeout"
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
                                          no_residue: None) -> None:
    monkeypatch.setattr(backend, "wall_limit_s", lambda limits: 12)
    exercise = hanging_exercise(tmp_path)
    solution = (exercise.path / "solution.py").read_text()
    started = time.monotonic()
    doc = backend.DockerSandbox().run(Job(exercise=exercise, code=solution, lang="ja"))
    assert (doc["status"], doc["error_kind"]) == ("error", "timeout")
    assert "秒" in doc["message"]
    assert time.monotonic() - started < 40


def test_a_harness_that_writes_nothing_is_the_platform_fault(
        monkeypatch: pytest.MonkeyPatch, flagship: Exercise, no_residue: None) -> None:
    real = backend.container_kwargs

    def silent(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return {**real(*args, **kwargs), "command": ["python3", "-c", "print('{\"version\": 1}')"]}

    monkeypatch.setattr(backend, "container_kwargs", silent)
    doc = backend.DockerSandbox().run(Job(exercise=flagship, code="x = 1\n"))
    assert (doc["status"], doc["error_kind"]) == ("error", "internal")
    assert "no results file" in doc["message"]  # stdout is never read as a verdict
