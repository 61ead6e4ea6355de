"""What every model shares: ids, the clock, a UTC-aware datetime column and a background job's columns."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import DateTime, Dialect, Integer, String
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.types import TypeDecorator


def new_id() -> str:
    # uuid4 carries 122 random bits: a row's id is not guessable from another's.
    return str(uuid.uuid4())


def utcnow() -> datetime:
    return datetime.now(UTC)


def code_size(code: str | None) -> int:
    """What a code column stores, in bytes (UTF-8), as the storage quota counts it."""
    return len(code.encode("utf-8", "surrogatepass")) if code else 0


def as_utc(moment: datetime) -> datetime:
    """A datetime with its zone: a naive one (a value built in Python, never a column's) is UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


class UTCDateTime(TypeDecorator[datetime]):
    """DateTime(timezone=True) that reads back aware on every database (SQLite stores it naive, as UTC)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        # Stored in UTC everywhere: SQLite drops the zone, so an aware non-UTC value would shift.
        return value.astimezone(UTC) if value is not None and value.tzinfo else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return as_utc(value) if value is not None else None


class JobColumns:
    """A background job's claim (app.grading.jobs): who holds it, since when, its last beat, its tries."""

    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # Set by the worker that claimed the job: only that claim may store the result, and a
    # heartbeat that stops (the worker died) lets another worker take the job over.
    claimed_by: Mapped[str | None] = mapped_column(String(36), nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # Claims so far: a job whose process died this many times ends with a message
    # (GRADING_MAX_ATTEMPTS) instead of killing worker after worker.
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

