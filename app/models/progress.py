"""A learner's own records beside their submissions: a draft per exercise, and each hint rung they revealed."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, validates

from app.extensions import db
from app.models.base import UTCDateTime, code_size, utcnow


class Draft(db.Model):  # type: ignore[name-defined,misc]
    """The latest unsent code of one learner for one exercise."""

    __tablename__ = "drafts"
    __table_args__ = (
        UniqueConstraint("learner", "exercise_id", name="uq_drafts_learner_exercise"),
        # Covers the storage quota's sum (app.progress.quota): it never reads a draft's code.
        Index("ix_drafts_learner_bytes", "learner", "exercise_id", "code_bytes"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner: Mapped[str] = mapped_column(String(64))
    exercise_id: Mapped[str] = mapped_column(String(64))
    code: Mapped[str] = mapped_column(Text)
    # UTF-8 bytes of `code`, kept with it on every change: the quota sums these, not the code.
    code_bytes: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Indexed: anonymous drafts expire by it (app.progress.expiry).
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow,
                                                 index=True)

    @validates("code")
    def _measure_code(self, _key: str, code: str) -> str:
        self.code_bytes = code_size(code)
        return code


class HintReveal(db.Model):  # type: ignore[name-defined,misc]
    """One learner asked for one rung of one check: who, what, when, and nothing else."""

    __tablename__ = "hint_reveals"
    __table_args__ = (
        UniqueConstraint("learner", "exercise_id", "check_id", "rung", name="uq_hint_reveals_once"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    learner: Mapped[str] = mapped_column(String(64))
    exercise_id: Mapped[str] = mapped_column(String(64), index=True)
    check_id: Mapped[str] = mapped_column(String(64))
    rung: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
