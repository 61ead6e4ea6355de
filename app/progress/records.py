"""Graded attempts of code exercises and quizzes, read as one kind of record."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from app.extensions import db
from app.models import QuizAttempt, Submission
from app.stored_json import number_at, text_at


@dataclass(frozen=True)
class Attempt:
    """One submission or quiz attempt: who, what, when, and the results document if graded."""

    learner: str
    exercise_id: str
    created_at: datetime
    result: dict[str, Any] | None  # None while a submission waits for its grader

    @property
    def counts(self) -> bool:
        # Internal and authoring errors are the platform's or the author's fault: never the learner's.
        return not (self.result and self.result.get("error_kind") in ("internal", "authoring"))

    @property
    def passed(self) -> bool:
        return bool(self.result and self.result.get("status") == "pass")

    @property
    def score(self) -> float | None:
        if not self.result:
            return None
        return float(self.result.get("score") or 0.0)

    def failing_checks(self) -> set[str]:
        tests = (self.result or {}).get("tests") or []
        return {t["check"] for t in tests
                if isinstance(t, dict) and t.get("status") in ("fail", "error") and t.get("check")}


def attempts(learners: Iterable[str] | None = None, *, checks: bool = True) -> list[Attempt]:
    """Every counted attempt, oldest first; of the given learners only, when given.

    checks=False reads three fields of each results document in the database (status, score,
    error_kind) instead of the whole document: what progress needs, at a cost that does not
    grow with the size of the documents the learner's gradings produced.
    """
    if checks:
        # Tuples: a JSON column is indexable, so unpacking it bare would never end.
        sub_result, quiz_result = (Submission.result,), (QuizAttempt.result,)
    else:
        sub_result = _light(Submission.result)
        quiz_result = _light(QuizAttempt.result)
    subs = select(Submission.learner, Submission.exercise_id, Submission.created_at,
                  Submission.status, *sub_result).where(Submission.learner.is_not(None))
    quiz = select(QuizAttempt.learner, QuizAttempt.exercise_id, QuizAttempt.created, *quiz_result)
    if learners is not None:
        keys = list(learners)
        subs = subs.where(Submission.learner.in_(keys))
        quiz = quiz.where(QuizAttempt.learner.in_(keys))
    found = [Attempt(row[0], row[1], row[2], _result(row[4:]) if row[3] == "done" else None)
             for row in db.session.execute(subs)]
    found += [Attempt(row[0], row[1], row[2], _result(row[3:]))
              for row in db.session.execute(quiz)]
    found = [item for item in found if item.counts]
    found.sort(key=lambda item: sort_key(item.created_at))
    return found


def _light(column: Any) -> tuple[Any, ...]:
    # JSON paths: json_extract on SQLite, ->> on PostgreSQL; the document is not sent over,
    # and one that is not valid JSON reads as NULL (app.stored_json).
    return (text_at(column, "status"), number_at(column, "score"), text_at(column, "error_kind"))


def _result(values: Any) -> dict[str, Any] | None:
    if len(values) == 1:
        return values[0]
    status, score, error_kind = values
    if status is None:
        return None
    return {"status": status, "score": score, "error_kind": error_kind}


def sort_key(moment: datetime) -> float:
    """A moment as a number (a column's datetimes are aware on every database: app.models.UTCDateTime)."""
    return moment.timestamp()
