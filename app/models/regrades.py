"""Regrade tables: one run per instructor's request, one job row per submission it regrades (its history)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import JobColumns, UTCDateTime, new_id, utcnow


class RegradeRun(db.Model):  # type: ignore[name-defined,misc]
    """One request to regrade an exercise's stored submissions ("latest" per learner, or "all").

    `active` holds the exercise id while the run has jobs left and NULL after: a unique column,
    so two runs of one exercise never run at once (a submission is never regraded by both).
    """

    __tablename__ = "regrade_runs"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    exercise_id: Mapped[str] = mapped_column(String(64), index=True)
    scope: Mapped[str] = mapped_column(String(8), default="latest")  # latest | all
    # The folder's fingerprint (grader.fingerprint) the run grades against.
    fingerprint: Mapped[str | None] = mapped_column(String(64), nullable=True)
    requested_by: Mapped[str | None] = mapped_column(String(120), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    total: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    active: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)


class Regrade(JobColumns, db.Model):  # type: ignore[name-defined,misc]
    """One submission regraded by one run: a background job (app.grading.jobs), and its history.

    The earlier result stays here (`old_result`) when the new one replaces the submission's, in
    the same transaction that ends this job: a submission is never half-regraded.
    """

    __tablename__ = "regrades"
    __table_args__ = (
        UniqueConstraint("run_id", "submission_id", name="uq_regrades_run_submission"),
        Index("ix_regrades_status_created", "status", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    run_id: Mapped[str] = mapped_column(String(36), ForeignKey("regrade_runs.id"), index=True)
    submission_id: Mapped[str] = mapped_column(String(36), ForeignKey("submissions.id"), index=True)
    exercise_id: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default="queued")  # queued | running | done
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # The submission's result before and after (None after: not regraded, the old one stays).
    old_result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    new_result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    old_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    new_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    # Checks whose status differs between the two results; a note when it was not regraded.
    changed: Mapped[list[str]] = mapped_column(JSON, default=list)
    note: Mapped[str | None] = mapped_column(String(200), nullable=True)
