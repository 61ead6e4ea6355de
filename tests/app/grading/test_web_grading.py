"""The in-process queue and worker: results stored, failures contained, lost work recovered."""

from __future__ import annotations

import shutil
import threading
import time

import pytest

from app.extensions import db
from app.grading.queue import recover_unfinished
from app.grading.worker import grade_submission
from app.models import Submission
from tests.app.grading.queues import StoppedQueue
from tests.app.web_helpers import keyword_grader, wait_for_done

URL = "/api/exercises/add-numbers/submissions"
GOOD = "def add(a, b):\n    return a + b\n"


def stored(app, submission_id) -> Submission:
    with app.app_context():
        sub = db.session.get(Submission, submission_id)
        db.session.expunge(sub)
        return sub


def test_worker_records_times_and_result(app, client):
    submission_id = client.post(URL, json={"code": GOOD}).get_json()["id"]
    wait_for_done(client, submission_id)
    sub = stored(app, submission_id)
    assert sub.status == "done" and sub.result["status"] == "pass"
    assert sub.created_at <= sub.started_at <= sub.finished_at


def test_grading_runs_off_the_request_thread(make_app):
    release = threading.Event()

    def slow_grader(exercise, code, **kwargs):
        release.wait(300)  # held until the test lets go (the timeout only ends a broken run)
        return keyword_grader(exercise, code, **kwargs)

    app = make_app(GRADE_FUNCTION=slow_grader)
    client = app.test_client()
    # The grader cannot finish before `release`: that the POST returns and the submission
    # is then seen running, not done, proves the request did not wait for it (timing the
    # POST would prove it only on an idle host).
    submission_id = client.post(URL, json={"code": GOOD}).get_json()["id"]
    deadline = time.monotonic() + 120
    while client.get(f"/api/submissions/{submission_id}").get_json()["status"] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert client.get(f"/api/submissions/{submission_id}").get_json()["result"] is None
    release.set()
    assert wait_for_done(client, submission_id)["result"]["status"] == "pass"


def test_a_grader_that_raises_becomes_an_internal_error(make_app):
    def broken(exercise, code, **kwargs):
        raise RuntimeError("sandbox exploded")

    app = make_app(GRADE_FUNCTION=broken)
    client = app.test_client()
    submission_id = client.post(URL, json={"code": GOOD, "lang": "ja"}).get_json()["id"]
    result = wait_for_done(client, submission_id)["result"]
    assert result["status"] == "error" and result["error_kind"] == "internal"
    # The grader's own words for its faults (grader.messages), with where, in the learner's language.
    assert "採点システム側で問題が起きました" in result["message"] and "採点ワーカー内" in result["message"]
    assert "exploded" not in result["message"]  # platform details stay in the log


@pytest.mark.parametrize(("lang", "said"), [("en", "no longer available"), ("ja", "公開を終了した")])
def test_an_exercise_removed_before_grading_ends_the_job(app, content, lang, said):
    with app.app_context():
        sub = Submission(exercise_id="add-again", code=GOOD, lang=lang, status="queued")
        db.session.add(sub)
        db.session.commit()
        submission_id = sub.id
    shutil.rmtree(content["exercises"] / "add-again")
    grade_submission(app, submission_id)  # as a worker thread does: an app context, no request
    sub = stored(app, submission_id)
    assert sub.status == "done" and sub.result["error_kind"] == "internal"
    assert said in sub.result["message"]  # in the submission's language (gettext, force_locale)


def test_a_job_is_graded_once_even_if_enqueued_twice(make_app):
    calls = []

    def counting(exercise, code, **kwargs):
        calls.append(code)
        return keyword_grader(exercise, code, **kwargs)

    app = make_app(GRADE_FUNCTION=counting)
    client = app.test_client()  # one browser: a submission is readable by its own learner only
    submission_id = client.post(URL, json={"code": GOOD}).get_json()["id"]
    wait_for_done(client, submission_id)
    grade_submission(app, submission_id)  # a duplicate delivery finds it already done
    assert len(calls) == 1


def test_unfinished_submissions_are_regraded_after_a_restart(make_app):
    # The first server stores work and stops before grading it (no worker ever runs).
    first = make_app(GRADING_QUEUE=lambda app: StoppedQueue())
    client = first.test_client()
    queued = client.post(URL, json={"code": GOOD}).get_json()["id"]
    running = client.post(URL, json={"code": "def add(a, b):\n    return 0\n"}).get_json()["id"]
    with first.app_context():
        db.session.get(Submission, running).status = "running"  # killed mid-grading
        db.session.commit()

    make_app()  # a restart: create_app() recovers what was left, and its worker grades it
    # Polled through the first app's client: the learner's cookie, the same database.
    assert wait_for_done(client, queued)["result"]["status"] == "pass"
    assert wait_for_done(client, running)["result"]["status"] == "fail"


def test_recovery_before_the_schema_exists_does_nothing(make_app, tmp_path):
    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'fresh.db'}")
    with app.app_context():
        db.drop_all()
    assert recover_unfinished(app) == []


def test_a_forked_process_gets_its_own_worker_threads(app, client):
    import os

    queue = app.extensions["grading_queue"]
    first = client.post(URL, json={"code": GOOD}).get_json()["id"]
    wait_for_done(client, first)  # the pool now holds a thread of this process
    parent_pool = queue._lanes["grading"]
    queue._pid = os.getpid() + 1  # what a forked child sees: the pid differs from the creator's
    second = client.post(URL, json={"code": GOOD}).get_json()["id"]
    assert wait_for_done(client, second)["result"]["status"] == "pass"
    assert queue._lanes["grading"] is not parent_pool
    parent_pool.shutdown(wait=True)
