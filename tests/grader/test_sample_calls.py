"""Every exercise's `sample_call` runs after its solution and prints something; a broken one is refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from grader.loader import load_exercise, load_exercises
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


def test_validate_reports_a_sample_call_that_fails_or_prints_nothing(tmp_path: Path) -> None:
    import re
    import shutil

    from grader.validate import _check_sample_call

    folder = tmp_path / "tensors-broadcast"
    shutil.copytree(EXERCISES / "tensors-broadcast", folder)
    config = folder / "exercise.toml"
    text = config.read_text(encoding="utf-8")
    solution = (folder / "solution.py").read_text(encoding="utf-8")
    for call, words in (("print(no_such_function(1))", "sample_call fails after solution.py"),
                        ("x = 1", "sample_call prints nothing")):
        config.write_text(re.sub(r"sample_call = '''.*?'''", f"sample_call = '''{call}'''", text,
                                 flags=re.S), encoding="utf-8")
        problems = _check_sample_call(load_exercise(folder), solution, "local")
        assert len(problems) == 1 and words in problems[0], problems
    assert _check_sample_call(load_exercise(EXERCISES / "tensors-broadcast"), solution, "local") == []


@pytest.mark.parametrize("bad", ["print(", "", "\n".join(["x = 1"] * 13)])
def test_a_broken_sample_call_is_refused(bad: str) -> None:
    with pytest.raises(ValidationError, match="sample_call"):
        ExerciseConfig(id="x", title={"en": "x", "ja": "x"}, lesson=1, kind="code", sample_call=bad)
