"""Database model of an exercise folder's last validation: solution passes, starter fails, for which contents."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, String, false
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models import utcnow


class ExerciseValidation(db.Model):  # type: ignore[name-defined,misc]
    """The state of one folder's check through the real grader (it takes seconds, so it is kept)."""

    __tablename__ = "exercise_validations"

    exercise_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    state: Mapped[str] = mapped_column(String(16), default="queued")  # queued | running | done
    ok: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    problems: Mapped[list[str]] = mapped_column(JSON, default=list)
    requested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    checked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # The folder's fingerprint (grader.fingerprint) the verdict is about: another one now means stale.
    fingerprint: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # Its tests cannot be graded at all (an authoring error): learners do not get the exercise.
    broken: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
