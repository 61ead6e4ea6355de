"""A learner's submissions of one exercise, oldest first, each beside the one before it."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from app.extensions import db
from app.models import Submission
from app.progress.diff import Diff, submission_diff


@dataclass(frozen=True)
class Entry:
    """A submission in the history, with the one before it and the diff between them."""

    submission: Submission
    previous: Submission | None
    diff: Diff | None


def submissions_of(learner: str | None, exercise_id: str) -> list[Submission]:
    if learner is None:
        return []
    return list(db.session.scalars(
        select(Submission)
        .where(Submission.learner == learner, Submission.exercise_id == exercise_id)
        .order_by(Submission.created_at, Submission.id)))


def entries(learner: str, exercise_id: str) -> list[Entry]:
    """The learner's submissions of one exercise, newest first, each diffed with its previous."""
    subs = submissions_of(learner, exercise_id)
    if not subs:
        return []  # zip(strict=True) below needs at least one submission
    found = [Entry(sub, before, submission_diff(before, sub) if before else None)
             for before, sub in zip([None, *subs[:-1]], subs, strict=True)]
    return list(reversed(found))


def previous_of(submission: Submission) -> Submission | None:
    """The same learner's submission of the same exercise just before this one."""
    earlier = [s for s in submissions_of(submission.learner, submission.exercise_id)
               if s.id != submission.id and
               (s.created_at, s.id) < (submission.created_at, submission.id)]
    return earlier[-1] if earlier else None


def summary(submission: Submission) -> dict[str, object]:
    """What the history lists for a submission (the API and the page use the same fields)."""
    result = submission.result if submission.status == "done" else None
    return {
        "id": submission.id,
        "exercise": submission.exercise_id,
        "created_at": submission.created_at.isoformat(),
        "status": submission.status,
        "verdict": result["status"] if result else None,
        "score": result.get("score") if result else None,
    }
