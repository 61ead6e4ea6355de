"""Japanese starters (starter.ja.py): every code exercise has one, it is starter.py with only comments
and strings translated, the loader serves it for ja, and `grader validate` holds it to failing like
the English starter."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from grader.api import grade_code
from grader.loader import load_exercise, load_exercises
from grader.starters import code_differences
from grader.validate import _check_localized_starter, check_code

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
CODE = sorted(e.id for e in load_exercises(EXERCISES).exercises.values() if e.kind.name == "code")
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@pytest.mark.parametrize("exercise_id", CODE)
def test_every_starter_has_a_japanese_twin_with_the_same_code(exercise_id: str) -> None:
    exercise = load_exercise(EXERCISES / exercise_id)
    japanese = exercise.starter_for("ja")
    assert japanese != exercise.starter and JAPANESE.search(japanese)
    assert code_differences(exercise.starter, japanese, "starter.ja.py") == []
    assert exercise.starter_for("en") == exercise.starter
    english_todos = [line for line in exercise.starter.splitlines() if "TODO" in line]
    japanese_todos = [line for line in japanese.splitlines() if "TODO" in line]
    assert len(japanese_todos) == len(english_todos)
    assert all(JAPANESE.search(line) for line in japanese_todos)  # no English TODO left behind


def test_changed_code_is_named_and_comments_strings_are_free() -> None:
    english = 'def f(x):\n    """Doc."""\n    # TODO: fix\n    return x + 1  # one\n'
    assert code_differences(english, 'def f(x):\n    """説明。"""\n    # TODO: 直す\n    return x + 1  # 1\n',
                            "starter.ja.py") == []
    problems = code_differences(english, 'def f(x):\n    """説明。"""\n    return x + 2\n', "starter.ja.py")
    assert len(problems) == 1 and "'2' where starter.py has '1'" in problems[0]
    assert "cannot be read" in code_differences(english, 'def f(x:\n    """', "starter.ja.py")[0]


def test_a_japanese_starter_that_passes_more_is_refused() -> None:
    english = {"status": "fail", "score": 0.0, "tests": [{"check": "a", "status": "fail"}]}
    same = {"status": "fail", "score": 0.0, "tests": [{"check": "a", "status": "fail"}]}
    better = {"status": "pass", "score": 1.0, "tests": [{"check": "a", "status": "pass"}]}
    assert _check_localized_starter("ja", same, english) == []
    assert "starter.ja.py must fail like starter.py" in _check_localized_starter("ja", better, english)[0]


def test_the_japanese_starter_is_graded_like_the_english_one() -> None:
    exercise = load_exercise(EXERCISES / "tensors-broadcast")
    english = grade_code(exercise, exercise.starter, sandbox="local")
    japanese = grade_code(exercise, exercise.starter_for("ja"), lang="ja", sandbox="local")
    assert (japanese["status"], japanese["score"]) == (english["status"], english["score"])
    assert [t["status"] for t in japanese["tests"]] == [t["status"] for t in english["tests"]]


def test_validate_reports_a_japanese_starter_whose_code_differs(tmp_path: Path) -> None:
    folder = tmp_path / "tensors-broadcast"
    shutil.copytree(EXERCISES / "tensors-broadcast", folder)
    japanese = folder / "starter.ja.py"
    # Now it solves the exercise: more than a translation, and it no longer fails like starter.py.
    japanese.write_text((folder / "solution.py").read_text(encoding="utf-8"), encoding="utf-8")
    problems = check_code(load_exercise(folder), "local")
    assert any("starter.ja.py must be starter.py with only its comments" in p for p in problems), problems
    assert any("starter.ja.py must fail like starter.py" in p for p in problems), problems
