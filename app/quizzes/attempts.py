"""Quiz attempts of the current learner: the learner key, recording, best and last scores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

# The learner key is the account's when logged in, else the browser session's.
from app.accounts.identity import learner_key  # noqa: F401
from app.extensions import db
from app.models import QuizAttempt


@dataclass(frozen=True)
class Scores:
    """A learner's standing on one quiz."""

    best: float | None
    last: float | None
    attempts: int

    def to_api(self) -> dict[str, Any]:
        return {"best_score": self.best, "last_score": self.last, "attempts": self.attempts}


def record(exercise_id: str, learner: str, answers: dict[str, Any], result: dict[str, Any],
           lang: str) -> QuizAttempt:
    attempt = QuizAttempt(exercise_id=exercise_id, learner=learner, answers=answers,
                          result=result, score=float(result["score"]), lang=lang)
    db.session.add(attempt)
    db.session.commit()
    return attempt


def scores(exercise_id: str, learner: str) -> Scores:
    mine = (QuizAttempt.exercise_id == exercise_id, QuizAttempt.learner == learner)
    best, count = db.session.execute(
        select(func.max(QuizAttempt.score), func.count(QuizAttempt.id)).where(*mine)
    ).one()
    last = db.session.execute(
        select(QuizAttempt.score).where(*mine)
        .order_by(QuizAttempt.created.desc(), QuizAttempt.id.desc()).limit(1)
    ).scalar()
    return Scores(best=best, last=last, attempts=int(count))


def find(attempt_id: str, exercise_id: str, learner: str) -> QuizAttempt | None:
    """An attempt of this learner on this quiz; another learner's id finds nothing."""
    attempt = db.session.get(QuizAttempt, attempt_id)
    if attempt is None or attempt.learner != learner or attempt.exercise_id != exercise_id:
        return None
    return attempt


def earlier(exercise_id: str, learner: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(answers, result) of every attempt of this learner on this quiz, oldest first."""
    rows = db.session.execute(
        select(QuizAttempt.answers, QuizAttempt.result)
        .where(QuizAttempt.exercise_id == exercise_id, QuizAttempt.learner == learner)
        .order_by(QuizAttempt.created, QuizAttempt.id))
    return [(row.answers or {}, row.result or {}) for row in rows]
