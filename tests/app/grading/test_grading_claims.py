"""Claims: a dead worker's job is taken over after its heartbeat stops, and its late result is dropped."""

from __future__ import annotations

from datetime import timedelta

from app.extensions import db
from app.grading import worker
from app.models import Submission, utcnow
from tests.app.accounts_helpers import GOOD, URL
from tests.app.grading.queues import StoppedQueue


def test_a_silent_job_is_reclaimed_and_the_old_workers_result_is_dropped(make_app):
    app = make_app(GRADING_QUEUE=lambda app: StoppedQueue(), GRADING_STALE_AFTER_S=30)
    submission_id = app.test_client().post(URL, json={"code": GOOD}).get_json()["id"]
    with app.app_context():
        old_token = worker._claim(submission_id)
        assert old_token is not None and worker._claim(submission_id) is None  # claimed once
        assert worker.reclaim_stale(app) == []  # beating recently: still its worker's
        db.session.get(Submission, submission_id).heartbeat_at = utcnow() - timedelta(seconds=31)
        db.session.commit()
    assert worker.reclaim_stale(app) == [submission_id]
    assert worker.grade_next(app) == submission_id  # another worker grades it
    with app.app_context():
        # The first worker wakes up and tries to store: refused, the result stays the new one.
        assert worker._store(submission_id, old_token, {"status": "stale"}) is False
        sub = db.session.get(Submission, submission_id)
        assert sub.status == "done" and sub.result["status"] == "pass"


def test_grade_next_takes_only_its_own_queue(make_app, content):
    app = make_app(GRADING_QUEUE=lambda app: StoppedQueue())
    submission_id = app.test_client().post(URL, json={"code": GOOD}).get_json()["id"]
    assert worker.grade_next(app, "gpu") is None  # a CPU exercise: GPU hosts leave it
    assert worker.grade_next(app, "cpu") == submission_id
