"""The course's shape, stated once: how many lessons, and what each kind of exercise needs.

A fifth lesson is one change (LESSONS); a new kind of exercise is one row in KINDS (its
required files, its validator, the page that shows it, whether it accepts code).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.loader import Exercise

LESSONS = 4


@dataclass(frozen=True)
class Kind:
    """What the loader, `grader validate` and the web app need to know about one kind."""

    name: str
    required_files: tuple[str, ...]  # besides exercise.toml and prompt.md
    # (exercise, sandbox, mutants, background) -> problems; background: the instructor lane
    validator: Callable[[Exercise, str | None, bool, bool], list[str]]
    page: tuple[str, str]  # the Flask endpoint that shows it, and the name of its id argument
    accepts_code: bool  # learners submit code that the sandbox grades


def _validate_code(exercise: Exercise, sandbox: str | None, with_mutants: bool,
                   background: bool) -> list[str]:
    from grader.validate import check_code  # late: grading pulls in the sandbox backends

    return check_code(exercise, sandbox, with_mutants=with_mutants, background=background)


def _validate_quiz(exercise: Exercise, sandbox: str | None, with_mutants: bool,
                   background: bool) -> list[str]:
    from grader.quiz import validate_quiz

    return validate_quiz(exercise)


KINDS: dict[str, Kind] = {
    "code": Kind("code", ("starter.py", "solution.py", "tests"), _validate_code,
                 page=("exercises.show", "exercise_id"), accepts_code=True),
    "quiz": Kind("quiz", ("quiz.toml",), _validate_quiz, page=("quizzes.show", "quiz_id"), accepts_code=False),
}
