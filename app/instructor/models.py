"""Database model of an exercise folder's last validation: solution passes, starter fails."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, String
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
