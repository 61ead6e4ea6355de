"""Folder checks are background jobs: seen folders are checked unasked, on threads of their own, not grading ones."""

from __future__ import annotations

import shutil
import threading

from sqlalchemy import select

from app.extensions import db
from app.grading import checks, jobs, lost
from app.grading.kinds import CHECKS
from app.grading.worker import background_next, grade_next
from app.models import ExerciseValidation, Submission
from grader.validate import AUTHORING, FolderReport
from tests.app.accounts_helpers import GOOD, URL
from tests.app.grading.queues import StoppedQueue, wait_until
from tests.app.web_helpers import keyword_grader


def verdicts(app) -> dict[str, ExerciseValidation]:
    with app.app_context():
        rows = {row.exercise_id: row for row in db.session.scalars(select(ExerciseValidation))}
        db.session.expunge_all()
    return rows


def test_new_and_changed_folders_are_checked_without_anyone_opening_a_page(make_app, content):
    """The in-process watch (the Celery sweep does the same): every code folder gets a verdict, a folder
    added later gets one, and a folder broken on disk is found and kept from learners."""
    checked: list[str] = []

    def fake_check(exercise, sandbox=None):
        checked.append(exercise.id)
        broken = "no_such_helper" in (exercise.path / "tests" / "test_add.py").read_text()
        return FolderReport(exercise.id, not broken, [AUTHORING + " tests/test_add.py"] if broken else [])

    app = make_app(CHECK_SEEN_FOLDERS=True, GRADING_SWEEP_S=0.1, VALIDATE_FUNCTION=fake_check)
    done = wait_until(lambda: {k for k, row in verdicts(app).items() if row.state == "done"} >= {
        "add-numbers", "add-again"}, 30, "both code folders to be checked")
    assert done and "pick-a-dtype" not in verdicts(app)  # a quiz has no tests to run

    exercises = content["exercises"]
    shutil.copytree(exercises / "add-numbers", exercises / "add-more")
    config = exercises / "add-more" / "exercise.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('"add-numbers"', '"add-more"'), encoding="utf-8")
    (exercises / "add-more" / "tests" / "test_add.py").write_text(
        "import no_such_helper\n\n\ndef test_add():\n    pass\n", encoding="utf-8")
    row = wait_until(lambda: (found := verdicts(app).get("add-more")) is not None and found.state == "done"
                     and found, 30, "the new folder to be checked")
    assert row.broken and not row.ok
    assert app.test_client().post("/api/exercises/add-more/submissions", json={"code": GOOD}).status_code == 409


def test_a_check_never_holds_the_grading_thread_a_learner_waits_for(make_app):
    """make_run's in-process queue with ONE grading thread: while a folder check runs (blocked
    here until the learner's result is in), the learner's submission is graded at once."""
    check_started, release = threading.Event(), threading.Event()

    def slow_check(exercise, sandbox=None):
        check_started.set()
        release.wait(60)
        return FolderReport(exercise.id, True, [])

    app = make_app(GRADER_WORKERS=1, VALIDATE_FUNCTION=slow_check)
    try:
        with app.app_context():
            checks.request(app, ["add-numbers"])
        assert check_started.wait(30), "the check never started"
        client = app.test_client()
        submission_id = client.post(URL, json={"code": GOOD}).get_json()["id"]
        graded = wait_until(lambda: (doc := client.get(f"/api/submissions/{submission_id}").get_json())["status"]
                            == "done" and doc, 30, "the learner's grading while a check runs")
        assert graded["result"]["status"] == "pass"
        assert verdicts(app)["add-numbers"].state == "running"  # graded beside the check, not after it
    finally:
        release.set()
    assert wait_until(lambda: verdicts(app)["add-numbers"].state == "done", 30, "the check to end")


def test_gradings_and_checks_take_separate_lanes_and_checks_run_one_at_a_time(make_app):
    order: list[str] = []

    def fake_check(exercise, sandbox=None):
        order.append(f"check {exercise.id}")
        return FolderReport(exercise.id, True, [])

    def grade(exercise, code, **_):
        order.append("grading")
        return keyword_grader(exercise, code)

    app = make_app(GRADING_QUEUE=StoppedQueue, VALIDATE_FUNCTION=fake_check, GRADE_FUNCTION=grade)
    with app.app_context():
        assert checks.request(app, ["add-numbers", "add-again"]) == ["add-numbers", "add-again"]
    app.test_client().post(URL, json={"code": GOOD})  # queued after the checks
    queue = app.extensions["grading_queue"]
    assert [kind for kind, _ in queue.enqueued] == ["check", "check", "submission"]

    with app.app_context():
        assert checks.claimable(app, None) == 1  # CHECK_MAX_RUNNING (1): one slot for checks
        token = "a-worker-busy-with-a-check"
        assert checks._claim(app, "add-numbers", token) == token
        assert checks.claimable(app, None) == 0  # the slot is taken: the other check waits
        assert checks._claim(app, "add-again", "another-worker") is None
        assert jobs.store(CHECKS, "add-numbers", token, ok=True, problems=[])
    for _ in range(2):
        grade_next(app, None)
    assert order == ["grading"]  # a grading worker takes learners' jobs only
    for _ in range(2):
        background_next(app, None)
    assert order == ["grading", "check add-again"]  # the background lane takes the waiting check


def test_a_check_whose_worker_died_is_taken_over_and_ends_after_n_attempts(make_app):
    app = make_app(GRADING_QUEUE=StoppedQueue, GRADING_MAX_ATTEMPTS=2, GRADING_STALE_AFTER_S=30,
                   VALIDATE_FUNCTION=lambda exercise, sandbox=None: FolderReport(exercise.id, True, []))
    with app.app_context():
        checks.request(app, ["add-numbers"])
        assert checks._claim(app, "add-numbers", "message-1") == "message-1"
    assert lost.release(app, "message-1") == ["add-numbers"]  # attempt 1 of 2: back in the queue
    with app.app_context():
        assert checks._claim(app, "add-numbers", "message-2") == "message-2"
        assert lost.reclaim_stale(app) == []  # beating: still its worker's
    with app.app_context():
        assert lost.release(app, "message-2") == []  # attempt 2 of 2: ended, not queued again
        assert not jobs.store(CHECKS, "add-numbers", "message-2", ok=True, problems=[])  # a late verdict
    row = verdicts(app)["add-numbers"]
    assert row.state == "done" and row.ok is False
    assert row.problems == ["could not be checked: its worker stopped 2 times"]
    with app.app_context():
        assert db.session.query(Submission).count() == 0


def test_a_check_left_running_by_a_stopped_server_runs_again_at_the_next_start(make_app):
    first = make_app(GRADING_QUEUE=StoppedQueue)
    with first.app_context():
        checks.request(first, ["add-numbers"])
        assert checks._claim(first, "add-numbers", "a-thread-of-the-stopped-server")
    ran: list[str] = []

    def fake_check(exercise, sandbox=None):
        ran.append(exercise.id)
        return FolderReport(exercise.id, True, [])

    make_app(VALIDATE_FUNCTION=fake_check)  # a restart: create_app() recovers what was left
    row = wait_until(lambda: (found := verdicts(first)["add-numbers"]).state == "done" and found, 30,
                     "the check to run again")
    assert row.ok and ran == ["add-numbers"] and row.attempts == 2  # two claims; a restart never ends a job
