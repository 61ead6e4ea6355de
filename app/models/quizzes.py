"""A quiz attempt's model: what a learner answered and how it was graded."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import UTCDateTime, new_id, utcnow


class QuizAttempt(db.Model):  # type: ignore[name-defined,misc]
    """One set of answers sent for a quiz by one learner (a browser session's key)."""

    __tablename__ = "quiz_attempts"
    __table_args__ = (Index("ix_quiz_attempts_learner_exercise", "learner", "exercise_id"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    learner: Mapped[str] = mapped_column(String(64))
    exercise_id: Mapped[str] = mapped_column(String(64))
    lang: Mapped[str] = mapped_column(String(8), default="en")
    answers: Mapped[dict[str, Any]] = mapped_column(JSON)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    score: Mapped[float] = mapped_column(Float)
    # Indexed: anonymous attempts expire by it (app.progress.expiry).
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
