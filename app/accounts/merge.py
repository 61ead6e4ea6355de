"""Re-own anonymous work when a learner signs up or logs in: nothing done before is lost."""

from __future__ import annotations

from sqlalchemy import select, update

from app.extensions import db
from app.models import Draft, HintReveal, QuizAttempt, Submission


def _merge_drafts(anonymous: str, account: str) -> None:
    """Move drafts over; where both have one for an exercise, the newer one wins."""
    theirs = {d.exercise_id: d for d in db.session.scalars(
        select(Draft).where(Draft.learner == account))}
    for draft in db.session.scalars(select(Draft).where(Draft.learner == anonymous)).all():
        existing = theirs.get(draft.exercise_id)
        if existing is None:
            draft.learner = account
        elif draft.updated_at > existing.updated_at:
            existing.code, existing.updated_at = draft.code, draft.updated_at
            db.session.delete(draft)
        else:
            db.session.delete(draft)


def _merge_hint_reveals(anonymous: str, account: str) -> None:
    """Move hint reveals over; one the account already has is kept once (the table is unique)."""
    seen = {(r.exercise_id, r.check_id, r.rung) for r in db.session.scalars(
        select(HintReveal).where(HintReveal.learner == account))}
    for reveal in db.session.scalars(select(HintReveal).where(HintReveal.learner == anonymous)).all():
        if (reveal.exercise_id, reveal.check_id, reveal.rung) in seen:
            db.session.delete(reveal)
        else:
            reveal.learner = account


def adopt_anonymous_work(anonymous: str | None, account: str) -> None:
    """Give the account every submission, quiz attempt and draft made under the anonymous key."""
    if not anonymous or anonymous == account:
        return
    db.session.execute(
        update(Submission).where(Submission.learner == anonymous).values(learner=account))
    db.session.execute(
        update(QuizAttempt).where(QuizAttempt.learner == anonymous).values(learner=account))
    _merge_drafts(anonymous, account)
    _merge_hint_reveals(anonymous, account)
    db.session.commit()
