"""The course's shape, stated once: how many lessons, and what each kind of exercise needs.

Data only (the lowest layer of the grader: it imports nothing of the grader). A fifth lesson
is one change (LESSONS); a new kind of exercise is one row in KINDS, one validator in
grader.validate.VALIDATORS and one page in app.exercises.routes.KIND_PAGES (tests check
that every kind has both).
"""

from __future__ import annotations

from dataclasses import dataclass

LESSONS = 4


@dataclass(frozen=True)
class Kind:
    """What the loader, `grader validate` and the web app need to know about one kind."""

    name: str
    required_files: tuple[str, ...]  # besides exercise.toml and prompt.md
    accepts_code: bool  # learners submit code that the sandbox grades


KINDS: dict[str, Kind] = {
    "code": Kind("code", ("starter.py", "solution.py", "tests"), accepts_code=True),
    "quiz": Kind("quiz", ("quiz.toml",), accepts_code=False),
}
