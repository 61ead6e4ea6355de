"""A regrade survives a kill -9 of the worker grading it: real redis-server, real `celery worker` processes.

The worker regrading a submission is killed (parent and pool); another takes the job over after
the heartbeat limit, and every submission ends with one new result: none graded into two, none lost.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter

import pytest
from sqlalchemy import select

from tests.app.regrade.regrade_helpers import mark_validated, old_result, store_submissions
from tests.celery.celery_stack import code, wait_until

pytestmark = pytest.mark.slow


def _events(web) -> list[tuple[str, str, str]]:
    return web.grade_events()


def test_a_regrade_resumes_after_kill_9_without_a_duplicate(stack):
    from app.extensions import db
    from app.grading import regrade
    from app.models import Regrade, Submission

    web, workers = stack
    web.serve()
    quick = {"GRADING_STALE_AFTER_S": "5"}
    # Regrades are the background lane's: `-Q background` workers take them, never a grading worker.
    workers.start("w1", queues="background", extra=quick)
    workers.start("w2", queues="background", extra=quick)
    markers = [uuid.uuid4().hex for _ in range(6)]
    slow = markers[2]  # its first grading hangs: the worker is killed while it runs
    ids = store_submissions(web.app, [(f"learner{n}", code(marker, sleep=60 if marker == slow else 0),
                                       old_result(False, 0.6)) for n, marker in enumerate(markers)])
    mark_validated(web.app)
    with web.app.app_context():
        run_id = regrade.start(web.app, "add-numbers").id
    victim = wait_until(lambda: [w for event, mark, w in _events(web) if event == "start" and mark == slow],
                        60, "the slow regrade to start")[0]
    killed_at = time.time()
    workers.kill(victim)
    with web.app.app_context():
        wait_until(lambda: regrade.active_run("add-numbers") is None, 120, "the regrade to finish")
        finished = time.time() - killed_at
        jobs = list(db.session.scalars(select(Regrade).where(Regrade.run_id == run_id)))
        results = {sub.id: sub.result for sub in db.session.scalars(select(Submission))}
    print(f"FIGURE regrade: whole worker kill -9 -> run finished after {finished:.2f} s (heartbeat limit 5 s)")

    assert sorted(job.submission_id for job in jobs) == sorted(ids)  # one job per submission, none lost
    assert all(job.status == "done" and job.new_score == 1.0 and job.old_score == 0.6 for job in jobs)
    assert {job.attempts for job in jobs if job.submission_id == ids[2]} == {2}  # taken over once
    assert all(results[sub_id]["status"] == "pass" for sub_id in ids)
    done = Counter(mark for event, mark, _ in _events(web) if event == "done")
    assert all(done[marker] == 1 for marker in markers), done  # graded into one result each
    started = Counter(mark for event, mark, _ in _events(web) if event == "start")
    assert started[slow] == 2 and all(started[m] == 1 for m in markers if m != slow)
