"""Every code exercise gets the same verdicts in the docker sandbox as in the local one."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.loader import load_exercise, load_exercises
from grader.sandboxes.base import Job
from grader.sandboxes.docker import DockerSandbox
from tests.grading_cache import GradingCache

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
CODE = sorted(e.id for e in load_exercises(EXERCISES).exercises.values()
              if e.config.kind == "code")
pytestmark = [pytest.mark.docker, pytest.mark.slow]


def verdict(doc: dict) -> tuple:
    return doc["status"], doc["error_kind"], [(t["check"], t["status"]) for t in doc["tests"]]


@pytest.mark.parametrize("exercise_id", CODE)
@pytest.mark.parametrize("which", ["solution.py", "starter.py"])
def test_same_verdict_as_local(exercise_id: str, which: str, gradings: GradingCache,
                               roomy_exercises: Path, no_residue: None) -> None:
    # The largest time limit (tests/conftest.py): the verdicts, not the speed, are compared.
    exercise = load_exercise(roomy_exercises / exercise_id)
    job = Job(exercise=exercise, code=(exercise.path / which).read_text(encoding="utf-8"))
    in_docker = DockerSandbox().run(job)
    assert in_docker["error_kind"] != "internal", in_docker["message"]
    # The local verdict is the one tests/grader/test_validate.py got for the same code (one
    # grading per run, see tests/grading_cache.py); the docker one is always graded here.
    assert verdict(in_docker) == verdict(gradings.grade(exercise, job.code, sandbox="local"))
    assert in_docker["status"] == ("pass" if which == "solution.py" else "fail")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_messages_come_in_the_learner_language(lang: str, no_residue: None) -> None:
    exercise = load_exercises(EXERCISES).exercises["amp-train-one-epoch"]
    doc = DockerSandbox().run(Job(exercise=exercise, code="def broken(:\n", lang=lang))
    assert doc["status"] == "error" and doc["error_kind"] == "syntax"
    japanese = any("\u3040" <= ch <= "\u30ff" for ch in doc["message"])
    assert japanese == (lang == "ja"), doc["message"]
