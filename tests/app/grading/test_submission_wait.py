"""The API tells a waiting learner their place in the queue, or how long grading has run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.extensions import db
from app.grading.position import submission_api
from app.models import Submission


def _add(status: str, minutes_ago: float, **extra: object) -> Submission:
    sub = Submission(exercise_id="add-numbers", learner="k", code="x", status=status,
                     created_at=datetime.now(UTC) - timedelta(minutes=minutes_ago), **extra)
    db.session.add(sub)
    db.session.commit()
    return sub


def test_queue_position_counts_older_queued_jobs_only(app):
    with app.app_context():
        _add("running", 10, started_at=datetime.now(UTC))
        first = _add("queued", 5)
        second = _add("queued", 3)
        third = _add("queued", 1)
        _add("done", 0.5)
        assert [submission_api(s)["queue_position"] for s in (first, second, third)] == [1, 2, 3]
        assert submission_api(first)["elapsed_s"] is None


def test_elapsed_seconds_while_running_and_nothing_when_done(app):
    with app.app_context():
        running = _add("running", 1, started_at=datetime.now(UTC) - timedelta(seconds=7))
        body = submission_api(running)
        assert body["queue_position"] is None
        assert 6.5 <= body["elapsed_s"] < 60
        done = _add("done", 1, started_at=datetime.now(UTC) - timedelta(seconds=7))
        assert submission_api(done)["elapsed_s"] is None and submission_api(done)["queue_position"] is None
