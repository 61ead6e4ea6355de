"""A regrade is a background job kind: each submission graded once, its earlier result kept, learners first."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.grading import regrade
from app.grading.worker import background_next, grade_next
from app.models import Regrade, RegradeRun, Submission
from tests.app.grading.queues import StoppedQueue, wait_until
from tests.app.regrade.regrade_helpers import (
    EXERCISE,
    GOOD,
    WRONG,
    CountingGrader,
    mark_validated,
    old_result,
    store_submissions,
)


def test_each_latest_submission_is_regraded_once_and_keeps_its_earlier_result(make_app):
    grader = CountingGrader()
    app = make_app(GRADE_FUNCTION=grader, GRADER_WORKERS=2)
    # Three learners; learner a's first submission is not their latest.
    first, *latest = store_submissions(app, [
        ("a", WRONG + "# 1\n", old_result(False, 0.0)),
        ("a", GOOD, old_result(False, 0.6)),
        ("b", GOOD + "# b\n", old_result(False, 0.6)),
        ("c", WRONG, old_result(False, 0.0)),
    ])
    mark_validated(app)
    with app.app_context():
        run = regrade.start(app, EXERCISE)
        assert run.total == 3
        run_id = run.id
        wait_until(lambda: regrade.active_run(EXERCISE) is None, 60, "the regrade to finish")
        rows = {row.submission_id: row for row in db.session.scalars(select(Regrade).where(Regrade.run_id == run_id))}
        assert set(rows) == set(latest)
        assert all(row.status == "done" and row.attempts == 1 for row in rows.values())
        assert rows[latest[0]].old_score == 0.6 and rows[latest[0]].new_score == 1.0
        assert rows[latest[0]].changed == ["returns-sum"]
        assert rows[latest[0]].old_result["status"] == "fail"
        assert rows[latest[2]].changed == []  # still wrong: the same verdict
        assert db.session.get(Submission, latest[0]).result["status"] == "pass"
        assert db.session.get(Submission, first).result["score"] == 0.0  # not the latest: untouched
        assert db.session.get(RegradeRun, run_id).finished_at is not None
    assert sorted(grader.calls.values()) == [1, 1, 1]  # graded once each
    assert WRONG + "# 1\n" not in grader.calls


def test_all_regrades_every_submission_and_again_after_a_further_change(make_app):
    grader = CountingGrader()
    app = make_app(GRADE_FUNCTION=grader, GRADER_WORKERS=1)
    ids = store_submissions(app, [("a", WRONG, old_result(False, 0.0)), ("a", GOOD, old_result(False, 0.5))])
    mark_validated(app)
    with app.app_context():
        regrade.start(app, EXERCISE, scope="all")
        wait_until(lambda: regrade.active_run(EXERCISE) is None, 60, "the first regrade")
        regrade.start(app, EXERCISE, scope="all")  # a further change: a second run is allowed
        wait_until(lambda: regrade.active_run(EXERCISE) is None, 60, "the second regrade")
        assert db.session.query(Regrade).count() == 4
        assert db.session.get(Submission, ids[1]).result["status"] == "pass"
    assert grader.calls[GOOD] == 2 and grader.calls[WRONG] == 2


def test_refused_while_one_runs_or_when_the_folder_does_not_validate(make_app):
    app = make_app(GRADING_QUEUE=StoppedQueue)
    store_submissions(app, [("a", GOOD, old_result(False, 0.0))])
    with app.app_context():
        with pytest.raises(regrade.Refused, match="has not passed its check"):
            regrade.start(app, EXERCISE)
        mark_validated(app)
        regrade.start(app, EXERCISE)
        with pytest.raises(regrade.Refused, match="under way"):
            regrade.start(app, EXERCISE, scope="all")
        with pytest.raises(regrade.Refused, match="no code exercise"):
            regrade.start(app, "pick-a-dtype")


def test_regrades_are_the_background_lane_s_never_a_grading_worker_s(make_app):
    app = make_app(GRADING_QUEUE=StoppedQueue)
    store_submissions(app, [(f"old{n}", GOOD, old_result(False, 0.0)) for n in range(3)])
    mark_validated(app)
    with app.app_context():
        regrade.start(app, EXERCISE)
        waiting = Submission(exercise_id=EXERCISE, learner="now", code=GOOD, lang="en", status="queued")
        db.session.add(waiting)
        db.session.commit()
        waiting_id = waiting.id
    # A grading worker takes the learner's job and never a regrade; the background lane takes
    # the regrades, one at a time.
    assert grade_next(app) == waiting_id
    assert grade_next(app) is None
    with app.app_context():
        regrade_ids = set(db.session.scalars(select(Regrade.id)))
    assert background_next(app) in regrade_ids
