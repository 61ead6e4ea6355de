"""Every exercise's `sample_call` runs after its solution and prints something; a broken one is refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from grader.loader import load_exercises
from grader.schema import ExerciseConfig

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
WITH_SAMPLE = sorted(e.id for e in load_exercises(EXERCISES).exercises.values() if e.config.sample_call)


def test_some_exercises_have_a_sample_call() -> None:
    assert "tensors-broadcast" in WITH_SAMPLE


@pytest.mark.parametrize("exercise_id", WITH_SAMPLE)
def test_the_sample_call_runs_after_the_solution_and_prints(exercise_id: str) -> None:
    exercise = load_exercises(EXERCISES).exercises[exercise_id]
    code = exercise.text("solution.py") + "\n" + str(exercise.config.sample_call) + "\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip(), "a sample call shows the learner something"


@pytest.mark.parametrize("bad", ["print(", "", "\n".join(["x = 1"] * 13)])
def test_a_broken_sample_call_is_refused(bad: str) -> None:
    with pytest.raises(ValidationError, match="sample_call"):
        ExerciseConfig(id="x", title={"en": "x", "ja": "x"}, lesson=1, kind="code", sample_call=bad)
