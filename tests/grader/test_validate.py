"""Every exercise folder in the repository passes the instructor check: schema, solution passes, starter fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import grader.validate
from grader.loader import load_exercise, load_exercises
from grader.validate import check_exercise, validate_all
from tests.grading_cache import GradingCache

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
FOUND = load_exercises(EXERCISES)


def test_no_folder_is_broken() -> None:
    assert not FOUND.errors, [str(error) for error in FOUND.errors]


@pytest.mark.slow
@pytest.mark.parametrize("exercise_id", sorted(FOUND.exercises))
def test_exercise_folder_is_valid(exercise_id: str, roomy_exercises: Path, gradings: GradingCache,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # The same local gradings are what tests/docker/test_parity.py compares docker against:
    # graded once per run (tests/grading_cache.py), whichever test asks first.
    monkeypatch.setattr(grader.validate, "grade_code", gradings.grade)
    real = FOUND.exercises[exercise_id]
    # Graded with the largest time limit, so a busy host cannot turn a pass into a timeout.
    exercise = load_exercise(roomy_exercises / real.path.name)
    report = check_exercise(exercise, sandbox="local")
    assert report.ok, report.problems
    if real.config.kind == "code":
        # The solution fits the exercise's real limit. Asked in CPU seconds of the whole
        # grading (harness start-up included, which the limit does not count), which a busy
        # host does not inflate the way it does wall-clock time.
        cpu = gradings.cpu_seconds(exercise, real.solution_path.read_text(encoding="utf-8"))
        assert cpu < real.config.limits.time_s, (cpu, real.config.limits.time_s)


def test_validate_reports_broken_folders_and_exit_code(tmp_path: Path) -> None:
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "exercise.toml").write_text('id = "broken"\nlesson = "three"\n')
    reports = list(validate_all(tmp_path))
    assert len(reports) == 1 and not reports[0].ok
    assert any("field 'lesson'" in problem for problem in reports[0].problems)
    completed = subprocess.run([sys.executable, "-m", "grader", "validate", str(tmp_path)],
                               capture_output=True, text=True, check=False)
    assert completed.returncode == 1
    assert "FAIL broken" in completed.stdout and "field 'lesson'" in completed.stdout
    # One exercise folder is accepted as it is, not only a folder of them.
    single = subprocess.run([sys.executable, "-m", "grader", "validate", str(tmp_path / "broken")],
                            capture_output=True, text=True, check=False)
    assert single.returncode == 1 and "FAIL broken" in single.stdout and "field 'lesson'" in single.stdout


def test_validate_flags_a_solution_that_fails(tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "amp-train-one-epoch"
    shutil.copytree(EXERCISES / "amp-train-one-epoch", folder)
    (folder / "solution.py").write_text((folder / "starter.py").read_text())
    report = check_exercise(load_exercises(tmp_path).exercises["amp-train-one-epoch"], "local")
    assert not report.ok
    # AMP: the reference is checked first, so the failing solution is named as the author's error.
    assert any("the reference solution (solution.py) fails" in problem for problem in report.problems)
    assert not any("declare scaler = false" in problem for problem in report.problems)  # fp16 needs it


@pytest.mark.slow
def test_a_misspelled_depends_fails_validation(tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "loop-train-epoch"
    shutil.copytree(EXERCISES / "loop-train-epoch", folder)
    tests = folder / "tests" / "test_train_epoch.py"
    text = tests.read_text()
    assert text.count('depends=["runs"]') >= 2
    tests.write_text(text.replace('depends=["runs"]', 'depends=["run"]', 1))
    line = 1 + text[: text.index('depends=["runs"]')].count("\n")
    report = check_exercise(load_exercises(tmp_path).exercises["loop-train-epoch"], "local")
    assert not report.ok
    # An author's mistake, said once (not as a failing solution, starter and mutants).
    problem = next(p for p in report.problems if p.startswith("authoring error: "))
    assert "depends on 'run'" in problem and len(report.problems) == 1
    # file and line of the check: its @check decorator, a few lines above the misspelled slug
    assert "tests/test_train_epoch.py:" in problem
    where = int(problem.split("tests/test_train_epoch.py:")[1].split(":")[0])
    assert 0 <= line - where <= 6
