"""The mutant proof graded for real on the flagship exercise: no mutant of its solution passes.

`python -m grader validate` runs it for every code exercise (docs/grading.md quotes the run);
here the suite keeps amp-fix-the-loop, whose checks the scoring issue was about, honest on
every commit (about 30 gradings, on the roomy copy so a busy host cannot turn a verdict into
a timeout).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import grader.validate
from grader.loader import load_exercise
from grader.mutants import mutants
from grader.validate import check_code
from tests.grading_cache import GradingCache


@pytest.mark.slow
def test_every_mutant_of_the_fix_the_loop_solution_fails_a_check(
        roomy_exercises: Path, gradings: GradingCache, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grader.validate, "grade_code", gradings.grade)
    exercise = load_exercise(roomy_exercises / "amp-fix-the-loop")
    assert len(mutants(exercise.solution_path.read_text(encoding="utf-8"))) >= 25
    assert check_code(exercise, "local", with_mutants=True) == []


@pytest.mark.slow
def test_every_check_of_the_flagship_fails_on_some_mutant(
        roomy_exercises: Path, gradings: GradingCache, monkeypatch: pytest.MonkeyPatch) -> None:
    # unscale-before-clip, fp32-master-weights, one-scaler and trains-every-batch judge mistakes
    # a learner adds; with mutants that only took away, they passed on 17 mutants and were
    # skipped on 21, and validate reported the folder (rightly) as having checks that never fail.
    monkeypatch.setattr(grader.validate, "grade_code", gradings.grade)
    exercise = load_exercise(roomy_exercises / "amp-train-one-epoch")
    assert check_code(exercise, "local", with_mutants=True) == []
