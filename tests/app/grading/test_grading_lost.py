"""Lost gradings: a released claim goes back to the queue, the Nth ends with a message; held rows are never claimed."""

from __future__ import annotations

import time

from sqlalchemy import update

from app.extensions import db
from app.grading import lost, worker
from app.grading.admission import forget_held
from app.models import Submission
from tests.app.accounts_helpers import GOOD, URL
from tests.app.grading.queues import StoppedQueue


def _submitted(app):
    return app.test_client().post(URL, json={"code": GOOD}).get_json()["id"]


def test_a_released_claim_is_queued_again_until_the_last_attempt_ends_it(make_app):
    app = make_app(GRADING_QUEUE=lambda app: StoppedQueue(), GRADING_MAX_ATTEMPTS=2)
    submission_id = _submitted(app)
    with app.app_context():
        assert worker._claim(submission_id, "message-1") == "message-1"
    assert lost.release(app, "message-1") == [submission_id]  # attempt 1 of 2: back in the queue
    assert lost.release(app, "message-1") == []  # nothing runs under that token any more
    with app.app_context():
        row = db.session.get(Submission, submission_id)
        assert (row.status, row.attempts) == ("queued", 1)
        assert worker._store(submission_id, "message-1", {"status": "late"}) is False  # not running
        assert worker._claim(submission_id, "message-2") == "message-2"
    assert lost.release(app, "message-2") == []  # attempt 2 of 2: ended, not queued
    with app.app_context():
        row = db.session.get(Submission, submission_id)
        assert (row.status, row.attempts) == ("done", 2)
        assert row.result["status"] == "error" and "stopped the grader 2 times" in row.result["message"]


def test_the_japanese_message_names_the_count():
    doc = lost.stopped_result("amp", "ja", 3)
    assert "3 回" in doc["message"] and doc["error_kind"] == "runtime"


def test_a_held_submission_is_never_claimed_and_a_stale_one_is_forgotten(make_app):
    app = make_app(GRADING_QUEUE=lambda app: StoppedQueue())
    submission_id = _submitted(app)
    with app.app_context():
        from app.grading.clock import db_now

        # As admission stores it while its caps are counted: stamped by the database's clock.
        db.session.execute(update(Submission).values(status="held", heartbeat_at=db_now()))
        db.session.commit()
    assert worker.grade_next(app) is None
    with app.app_context():
        assert forget_held(60) == 0  # just stored: its request may still admit it
        time.sleep(0.01)  # the clock has millisecond steps
        assert forget_held(0) == 1
        assert db.session.get(Submission, submission_id) is None


def test_the_database_clock_orders_like_stored_times(make_app):
    # SQLite compares DateTime columns as text: db_now() must use the stored text form.
    app = make_app(GRADING_QUEUE=lambda app: StoppedQueue(), GRADING_STALE_AFTER_S=30)
    submission_id = _submitted(app)
    with app.app_context():
        worker._claim(submission_id)
    assert worker.reclaim_stale(app) == []  # beat just now, by the database's clock
    with app.app_context():
        from app.grading.clock import db_now

        db.session.execute(update(Submission).values(heartbeat_at=db_now(31)))
        db.session.commit()
        assert db.session.get(Submission, submission_id).heartbeat_at is not None  # read back
    assert worker.reclaim_stale(app) == [submission_id]
