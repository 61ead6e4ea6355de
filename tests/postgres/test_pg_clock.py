"""The database's clock on PostgreSQL is the time now, not the start of the caller's transaction."""

from __future__ import annotations

import time

from sqlalchemy import select

from app import create_app
from app.extensions import db
from app.grading.clock import db_now


def test_the_database_clock_moves_on_inside_a_transaction(pg_url, content) -> None:
    # A worker reads its submission (a transaction begins) and grades for seconds before it
    # stores the result: with now() the result's finished_at was the time of that read.
    app = create_app({"TESTING": True, "SECRET_KEY": "test", "SQLALCHEMY_DATABASE_URI": pg_url,
                      "LESSONS_DIR": str(content["lessons"]), "EXERCISES_DIR": str(content["exercises"]),
                      "GRADER_RECOVER_ON_START": False})
    try:
        with app.app_context():
            first = db.session.scalar(select(db_now()))  # no table needed: nothing here is wiped
            time.sleep(1.0)
            second = db.session.scalar(select(db_now()))
            db.session.rollback()
    finally:
        app.extensions["grading_queue"].shutdown()
    assert (second - first).total_seconds() >= 1.0
