"""The suite's cache of gradings: one grading per key and run, shared through its folder, never stale."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from grader.loader import load_exercise
from tests.grading_cache import GradingCache

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Replace the real grading with a recorder, so these tests take milliseconds."""
    calls: list[tuple[str, str]] = []

    def fake_run(self: GradingCache, exercise: Any, code: str, lang: str, sandbox: str) -> dict[str, Any]:
        calls.append((exercise.id, code))
        self.graded += 1
        kind = "internal" if "platform-fault" in code else None
        return {"doc": {"exercise": exercise.id, "status": "error" if kind else "pass",
                        "error_kind": kind, "tests": []}, "cpu_s": 1.5}

    monkeypatch.setattr(GradingCache, "_run", fake_run)
    return calls


@pytest.fixture
def exercise(tmp_path: Path) -> Any:
    target = tmp_path / "ex" / "tensors-dtype-memory"
    shutil.copytree(EXERCISES / "tensors-dtype-memory", target)
    return load_exercise(target)


def test_a_second_ask_reuses_the_first_grading(counted: list, exercise: Any) -> None:
    cache = GradingCache()
    first = cache.grade(exercise, "x = 1\n")
    first["status"] = "changed by the caller"  # each caller gets its own copy
    assert cache.grade(exercise, "x = 1\n")["status"] == "pass"
    assert len(counted) == 1
    cache.grade(exercise, "x = 2\n")
    cache.grade(exercise, "x = 1\n", lang="ja")
    assert len(counted) == 3  # other code, other language: other keys


def test_the_folder_shares_gradings_between_processes(counted: list, exercise: Any,
                                                      tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    GradingCache(folder).grade(exercise, "x = 1\n")
    other = GradingCache(folder)  # as another xdist worker or the docker group would
    assert other.grade(exercise, "x = 1\n")["status"] == "pass"
    assert len(counted) == 1 and other.graded == 0


def test_a_changed_exercise_file_is_graded_again(counted: list, exercise: Any) -> None:
    cache = GradingCache()
    cache.grade(exercise, "x = 1\n")
    test_file = next((exercise.path / "tests").glob("test_*.py"))
    test_file.write_text(test_file.read_text() + "\n# changed\n")
    cache.grade(exercise, "x = 1\n")
    assert len(counted) == 2


def test_platform_faults_are_never_kept(counted: list, exercise: Any, tmp_path: Path) -> None:
    cache = GradingCache(tmp_path / "cache")
    for _ in range(2):
        assert cache.grade(exercise, "platform-fault\n")["error_kind"] == "internal"
    assert len(counted) == 2


def test_only_local_gradings_are_cached(exercise: Any) -> None:
    with pytest.raises(ValueError, match="only local"):
        GradingCache().grade(exercise, "x = 1\n", sandbox="docker")


def test_the_cpu_time_of_a_grading_is_kept(counted: list, exercise: Any, tmp_path: Path) -> None:
    GradingCache(tmp_path / "cache").grade(exercise, "x = 1\n")
    assert GradingCache(tmp_path / "cache").cpu_seconds(exercise, "x = 1\n") == 1.5
    assert len(counted) == 1


def test_the_cpu_time_counts_the_processes_under_the_grading(exercise: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys

    def busy_grade(exercise: Any, code: str, **kwargs: Any) -> dict[str, Any]:
        # A child that itself spins a grandchild for ~0.3 s of CPU, as harness and runner do.
        spin = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass"
        subprocess.run([sys.executable, "-c", f"import subprocess, sys; subprocess.run("
                        f"[sys.executable, '-c', {spin!r}])"], check=True)
        return {"exercise": exercise.id, "status": "pass", "error_kind": None, "tests": []}

    monkeypatch.setattr("grader.api.grade_code", busy_grade)
    assert GradingCache().cpu_seconds(exercise, "x = 1\n") >= 0.3


def test_a_module_graded_twice_in_one_run_fails_loudly(tmp_path, monkeypatch):
    from tests.conftest import once_per_run

    monkeypatch.setenv("LEARNAI_GRADING_CACHE", str(tmp_path / "not-made-yet"))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    once_per_run("the corpus")  # the first worker
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    with pytest.raises(pytest.fail.Exception, match="first on gw0, now on gw1"):
        once_per_run("the corpus")
    once_per_run("another module")  # each name on its own
