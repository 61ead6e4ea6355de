"""Database model of a draft: the code a learner left in the editor, one per exercise."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models import utcnow


class Draft(db.Model):  # type: ignore[name-defined,misc]
    """The latest unsent code of one learner for one exercise."""

    __tablename__ = "drafts"
    __table_args__ = (
        UniqueConstraint("learner", "exercise_id", name="uq_drafts_learner_exercise"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner: Mapped[str] = mapped_column(String(64))
    exercise_id: Mapped[str] = mapped_column(String(64))
    code: Mapped[str] = mapped_column(Text)
    # Indexed: anonymous drafts expire by it (app.progress.expiry).
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 index=True)
