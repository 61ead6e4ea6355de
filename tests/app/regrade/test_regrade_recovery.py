"""A web restart with a thousand queued regrades costs a few tokens, not one per regrade, and still
regrades each submission once (the tokens counted where the in-process queue hands them to threads)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select, update

from app.extensions import db
from app.grading import regrade
from app.models import Regrade
from tests.app.grading.queues import StoppedQueue, wait_until
from tests.app.regrade.regrade_helpers import (
    EXERCISE,
    GOOD,
    CountingGrader,
    mark_validated,
    old_result,
    store_submissions,
)

LEARNERS = 150  # far more than any lane has threads: one token each would be 150


class TokenCounter:
    """Counts the tokens (pool submissions) handed out by one thread: the one that runs recovery.

    Tokens handed out later by worker threads, as each job ends and wakes the next, are not counted:
    they are one per job that ran, whatever recovery did."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        self._thread = threading.get_ident()
        submit = ThreadPoolExecutor.submit

        def counting(pool, fn, /, *args, **kwargs):
            if threading.get_ident() == self._thread:
                self.count += 1
            return submit(pool, fn, *args, **kwargs)

        monkeypatch.setattr(ThreadPoolExecutor, "submit", counting)


def test_a_restart_gives_queued_regrades_a_few_tokens_and_regrades_each_once(make_app, monkeypatch):
    # The first server wrote the run and stopped before its worker took any (one was running: kill -9).
    first = make_app(GRADING_QUEUE=lambda app: StoppedQueue())
    store_submissions(first, [(f"learner{n}", GOOD + f"# {n}\n", old_result(False, 0.5)) for n in range(LEARNERS)])
    mark_validated(first)
    with first.app_context():
        regrade.start(first, EXERCISE)
        killed = db.session.scalars(select(Regrade.id).limit(1)).one()
        db.session.execute(update(Regrade).where(Regrade.id == killed)
                           .values(status="running", claimed_by="a-dead-worker", attempts=1))
        db.session.commit()

    grader = CountingGrader()
    tokens = TokenCounter(monkeypatch)
    second = make_app(GRADE_FUNCTION=grader, GRADER_WORKERS=2, BACKGROUND_WORKERS=1,
                      CHECK_SEEN_FOLDERS=False)  # a restart: create_app() recovers what was left
    recovered = tokens.count
    with second.app_context():
        wait_until(lambda: regrade.active_run(EXERCISE) is None, 120, "the regrade to finish after the restart")
        rows = list(db.session.scalars(select(Regrade)))
    assert 1 <= recovered <= 2, f"{recovered} tokens for {LEARNERS} queued regrades"
    assert len(rows) == LEARNERS and all(row.status == "done" and row.new_score == 1.0 for row in rows)
    assert sorted(set(grader.calls.values())) == [1] and len(grader.calls) == LEARNERS  # each graded once
