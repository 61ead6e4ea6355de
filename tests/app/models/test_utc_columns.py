"""Every datetime column reads back aware, in UTC, on SQLite too (app.models.UTCDateTime): no hand fix needed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from flask import Flask
from sqlalchemy import DateTime, select

from app.extensions import db
from app.models import Draft, Submission, UTCDateTime


def test_a_stored_time_reads_back_aware_and_the_same_instant(app: Flask) -> None:
    tokyo = timezone(timedelta(hours=9))
    written = datetime(2026, 1, 2, 9, 30, tzinfo=tokyo)  # 00:30 UTC
    with app.app_context():
        db.session.add(Submission(exercise_id="add-numbers", learner="k", code="x", created_at=written))
        db.session.commit()
        db.session.expunge_all()
        read = db.session.scalars(select(Submission)).one().created_at
        latest = db.session.scalar(select(db.func.max(Submission.created_at)))
    assert read.tzinfo is not None and read.utcoffset() == timedelta(0)
    assert read == written and latest == written
    assert read.isoformat() == "2026-01-02T00:30:00+00:00"


def test_a_default_time_reads_back_aware(app: Flask) -> None:
    with app.app_context():
        db.session.add(Draft(learner="k", exercise_id="add-numbers", code="x"))
        db.session.commit()
        db.session.expunge_all()
        updated = db.session.scalars(select(Draft)).one().updated_at
    assert updated.tzinfo is not None
    assert abs(datetime.now(UTC) - updated) < timedelta(minutes=1)


def test_every_datetime_column_of_every_model_is_utc_aware() -> None:
    naive = [f"{table.name}.{column.name}" for table in db.metadata.sorted_tables for column in table.columns
             if isinstance(column.type, DateTime) and not isinstance(column.type, UTCDateTime)]
    assert not naive, f"use app.models.UTCDateTime for these columns: {naive}"
