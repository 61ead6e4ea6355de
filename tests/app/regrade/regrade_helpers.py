"""Helpers for the regrade tests: stored graded submissions, a folder that validates now, a counting grader."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from flask import Flask

from app.extensions import db
from app.models import ExerciseValidation, Submission
from tests.app.web_helpers import keyword_grader

GOOD = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"
EXERCISE = "add-numbers"


def old_result(passed: bool, score: float) -> dict[str, Any]:
    """What a broken earlier version of the check said (a failing verdict for good code, say)."""
    return {"exercise": EXERCISE, "status": "pass" if passed else "fail", "score": score, "message": "",
            "tests": [{"name": "test_add", "check": "returns-sum", "title": "Returns the sum",
                       "status": "pass" if passed else "fail", "message": "", "points": 1, "max_points": 1}]}


def store_submissions(app: Flask, rows: list[tuple[str, str, dict[str, Any]]]) -> list[str]:
    """Graded submissions (learner, code, result), oldest first; their ids."""
    ids = []
    with app.app_context():
        for learner, code, result in rows:
            sub = Submission(exercise_id=EXERCISE, learner=learner, code=code, lang="en", status="done",
                             result=result)
            db.session.add(sub)
            db.session.flush()
            ids.append(sub.id)
        db.session.commit()
    return ids


def mark_validated(app: Flask, exercise_id: str = EXERCISE) -> None:
    """The folder's check passed about its contents as they are now."""
    with app.app_context():
        fingerprint = app.extensions["exercise_catalog"].fingerprint(exercise_id)
        db.session.merge(ExerciseValidation(exercise_id=exercise_id, state="done", ok=True, broken=False,
                                            problems=[], fingerprint=fingerprint))
        db.session.commit()


class CountingGrader:
    """keyword_grader that counts its gradings per code (a regrade must grade each submission once)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, exercise: Any, code: str, **kwargs: Any) -> dict[str, Any]:
        with self.lock:
            self.calls[code] += 1
        return keyword_grader(exercise, code, **kwargs)
