"""Honest scores: on every code exercise, the untouched starter and an empty function score 0.

Through the real grader (local sandbox), one grading each. A check whose subject never
happened is skipped or failed, never passed; what the starter already does right is declared
given=True: it earns nothing while it holds and costs its points when broken.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.loader import load_exercise, load_exercises
from grader.mutants import emptied
from tests.grading_cache import GradingCache

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
CODE = sorted(e.id for e in load_exercises(EXERCISES).exercises.values() if e.config.kind == "code")


@pytest.mark.slow
@pytest.mark.parametrize("which", ["starter", "empty"])
@pytest.mark.parametrize("exercise_id", CODE)
def test_no_work_scores_zero(exercise_id: str, which: str, roomy_exercises: Path,
                             gradings: GradingCache) -> None:
    # The copies with the largest time limit, through the run's grading cache: the starter's
    # grading is the one tests/grader/test_validate.py asks for too (one grading per run),
    # and a busy host cannot turn an honest 0 into a timeout.
    exercise = load_exercise(roomy_exercises / exercise_id)
    code = exercise.starter if which == "starter" else emptied(exercise.starter)
    doc = gradings.grade(exercise, code, sandbox="local")
    earned = {t["check"]: t["status"] for t in doc["tests"] if t["points"]}
    assert doc["status"] != "pass"
    assert doc["score"] == 0, earned
    if which == "starter":  # the starter passes exactly the checks declared given=True
        assert {t["check"] for t in doc["tests"] if t["status"] == "pass"} == \
            {t["check"] for t in doc["tests"] if t["given"]}
