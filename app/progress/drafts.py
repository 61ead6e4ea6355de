"""Drafts on the server: load, save (the starter itself is no draft) and forget, per learner."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.models import Draft, utcnow
from grader.api import Exercise


def load(exercise_id: str, learner: str) -> Draft | None:
    draft: Draft | None = db.session.scalar(
        select(Draft).where(Draft.learner == learner, Draft.exercise_id == exercise_id))
    return draft


def forget(exercise_id: str, learner: str) -> None:
    db.session.execute(
        delete(Draft).where(Draft.learner == learner, Draft.exercise_id == exercise_id))
    db.session.commit()


def save(exercise: Exercise, learner: str, code: str) -> Draft | None:
    """Store the code as this learner's draft; code equal to a starter (any language's) removes it."""
    if code in (exercise.starter, exercise.starter_for("ja")):
        # Storing the starter would only hide a later fix of the starter from this learner.
        forget(exercise.id, learner)
        return None
    for _attempt in range(2):
        draft = load(exercise.id, learner)
        if draft is None:
            draft = Draft(learner=learner, exercise_id=exercise.id)
            db.session.add(draft)
        draft.code, draft.updated_at = code, utcnow()
        try:
            db.session.commit()
            return draft
        except IntegrityError:  # another tab inserted the same draft a moment ago: update it
            db.session.rollback()
    raise RuntimeError("draft could not be saved")
