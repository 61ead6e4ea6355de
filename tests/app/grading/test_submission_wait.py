"""The API tells a waiting learner their place in the queue, or how long grading has run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.extensions import db
from app.grading.position import submission_api
from app.models import Submission
from tests.app.grading.queues import StoppedQueue


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


def test_seconds_waited_while_queued(app):
    with app.app_context():
        queued = _add("queued", 0.5)
        assert 29 <= queued.to_api()["waited_s"] < 90
        running = _add("running", 1, started_at=datetime.now(UTC))
        assert running.to_api()["waited_s"] is None


def test_the_phase_is_shown_while_running_only(app):
    with app.app_context():
        starting = _add("running", 1, started_at=datetime.now(UTC), phase="starting")
        assert starting.to_api()["phase"] == "starting"
        assert _add("running", 1, started_at=datetime.now(UTC)).to_api()["phase"] is None
        # A phase left behind by the job's grading says nothing once it is done.
        assert _add("done", 1, phase="starting").to_api()["phase"] is None


def test_the_worker_stores_the_phase_the_grader_reports_while_it_grades(make_app):
    """A grader reporting "starting" (no warm sandbox free) shows in GET /api/submissions/<id>."""
    import threading

    from app.grading.worker import grade_next

    reported, finish = threading.Event(), threading.Event()

    def grade(exercise, code, *, lang="en", sandbox=None, on_phase=None):
        # As the sandboxes may: from a thread of the grader's own (pool.take's wait).
        reporter = threading.Thread(target=on_phase, args=("starting",))
        reporter.start()
        reporter.join()
        reported.set()
        assert finish.wait(30)
        return {"exercise": exercise.id, "status": "pass", "score": 1.0, "message": "ok",
                "checks": [], "output": "", "duration_s": 0.1}

    app = make_app(GRADE_FUNCTION=grade, GRADING_QUEUE=StoppedQueue)
    client = app.test_client()
    sent = client.post("/api/exercises/add-numbers/submissions",
                       json={"code": "def add(a, b):\n    return a + b\n"})
    assert sent.status_code == 202
    submission_id = sent.get_json()["id"]
    queued = client.get(f"/api/submissions/{submission_id}").get_json()
    assert queued["status"] == "queued" and queued["phase"] is None
    worker = threading.Thread(target=grade_next, args=(app,))
    worker.start()
    try:
        assert reported.wait(30)
        seen = client.get(f"/api/submissions/{submission_id}").get_json()
    finally:
        finish.set()
        worker.join(30)
    assert seen["status"] == "running" and seen["phase"] == "starting"
    done = client.get(f"/api/submissions/{submission_id}").get_json()
    assert done["status"] == "done" and done["phase"] is None
