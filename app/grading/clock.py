"""The database's clock as SQL: claims, heartbeats and reclaim cutoffs all read one clock, never a host's."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func

from app.extensions import db


def db_now(seconds_ago: float = 0.0) -> Any:
    """An SQL expression for the database's time now (or `seconds_ago` before it).

    A worker whose clock is minutes off therefore neither looks dead to the others nor takes a
    live job over: every host compares times the database wrote with the database's own now.
    """
    if db.session.get_bind().dialect.name == "sqlite":
        # SQLite's own clock (UTC), in the text form SQLAlchemy stores DateTime columns in,
        # so that comparisons with stored values (text comparisons in SQLite) keep their order.
        return func.strftime("%Y-%m-%d %H:%M:%f", "now", f"-{seconds_ago:.3f} seconds")
    # PostgreSQL: clock_timestamp(), the time now. now() is when the caller's transaction began,
    # and a worker's began when it read its submission, before grading: finished_at was then the
    # start of the grading, which the fair order reads as the learner's last finish.
    return func.clock_timestamp() - timedelta(seconds=seconds_ago)
