"""Fixtures for the quiz engine tests: a small quiz folder written to a temporary directory."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.loader import Exercise, load_exercise

EXERCISE_TOML = """\
id = "{id}"
lesson = 1
kind = "quiz"
points = {points}
[title]
en = "A quiz"
ja = "クイズ"
"""

# One question of each kind, shared by the engine, schema and web tests.
SAMPLE_QUIZ = (Path(__file__).parent / "sample_quiz.toml").read_text(encoding="utf-8")


def _points(quiz_toml: str) -> int:
    """The quiz's worth as validate wants it: its questions' points added up (1 when unreadable)."""
    try:
        questions = tomllib.loads(quiz_toml).get("questions", [])
        return max(1, sum(int(q.get("points", 1)) for q in questions if isinstance(q, dict)))
    except (tomllib.TOMLDecodeError, TypeError, ValueError, AttributeError):
        return 1


@pytest.fixture
def make_quiz(tmp_path: Path) -> Callable[..., Exercise]:
    """Write a quiz folder (quiz.toml text given) and load it as an Exercise."""

    made = iter(range(1000))

    def make(quiz_toml: str = SAMPLE_QUIZ, exercise_id: str = "quiz-sample") -> Exercise:
        # A fresh parent per call: a test may make several folders with the same id.
        folder = tmp_path / str(next(made)) / exercise_id
        folder.mkdir(parents=True)
        (folder / "exercise.toml").write_text(EXERCISE_TOML.format(id=exercise_id, points=_points(quiz_toml)), "utf-8")
        (folder / "prompt.md").write_text("Answer the questions.", "utf-8")
        (folder / "quiz.toml").write_text(quiz_toml, "utf-8")
        return load_exercise(folder)

    return make


@pytest.fixture
def sample() -> str:
    """The sample quiz.toml text, for tests that break one field of it."""
    return SAMPLE_QUIZ


@pytest.fixture
def quiz(make_quiz: Callable[..., Exercise]) -> Exercise:
    return make_quiz()
