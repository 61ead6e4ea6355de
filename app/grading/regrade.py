"""Regrading an exercise's stored submissions after its folder changed: a background job kind on the grading queues.

An instructor (or `flask regrade`) starts a run for an exercise whose folder validates now; the
run writes one job row per submission (the latest per learner, or all) in one transaction. A
worker takes a regrade only when no learner's grading and no folder check is claimable, and at
most REGRADE_MAX_RUNNING run at once (a bounded batch), so learners keep the other workers. Each
job is claimed, beaten, taken over and ended like a grading (app.grading.jobs); its new result
replaces the submission's in the same transaction that ends the job under its claim, so a
submission is regraded once, never half-way, and a job lost with its worker is graded again.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, exists, func, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased

from app.extensions import db
from app.grading import jobs
from app.grading.clock import db_now
from app.grading.fairness import claim_fairest
from app.grading.handle import get_queue
from app.grading.kinds import REGRADES
from app.grading.routing import queue_kind
from app.grading.storing import store_finished
from app.models import ExerciseValidation, Regrade, RegradeRun, Submission

if TYPE_CHECKING:
    from flask import Flask

    from grader.api import Exercise

log = logging.getLogger(__name__)
# Held by each regrade's claim on PostgreSQL, so two claims count the running regrades in turn.
_CLAIM_LOCK = int.from_bytes(hashlib.sha256(b"learnai:regrade-claim").digest()[:8], "big", signed=True)
BATCH = 500  # submission ids read per query when a run is written: memory stays bounded
SCOPES = ("latest", "all")

# worker._run_grader's shape: the learners' own grading path grades a regrade too.
Grade = Callable[["Flask", "Exercise | None", Submission, str], dict[str, Any]]


class Refused(Exception):
    """A regrade that may not start; the message says why (to the operator), `reason` which (pages translate it)."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def _validates_now(app: Flask, exercise_id: str) -> bool:
    """The folder's check passed about its contents as they are now."""
    row = db.session.get(ExerciseValidation, exercise_id)
    fingerprint = app.extensions["exercise_catalog"].fingerprint(exercise_id)
    return bool(row is not None and row.state == "done" and row.ok and not row.broken
                and fingerprint is not None and row.fingerprint == fingerprint)


def close_finished(*which: Any) -> None:
    """Runs (those matching `which`; any) with no job left to do are finished: their exercise may be regraded again.

    Called when a run's last job ends, and before a start (a job ended by the sweep after its
    last attempt closes no run by itself).
    """
    pending = exists().where(Regrade.run_id == RegradeRun.id, Regrade.status != "done")
    db.session.execute(update(RegradeRun).where(RegradeRun.active.is_not(None), ~pending, *which)
                       .values(active=None, finished_at=db_now()))
    db.session.commit()


def _submission_ids(exercise_id: str, scope: str) -> list[str]:
    """Graded submissions of the exercise: every one, or each learner's latest, in id order."""
    graded = and_(Submission.exercise_id == exercise_id, Submission.status == "done",
                  Submission.result.is_not(None))
    if scope == "all":
        query = select(Submission.id).where(graded)
    else:
        newest = (select(Submission.learner, func.max(Submission.created_at).label("created"))
                  .where(graded, Submission.learner.is_not(None)).group_by(Submission.learner).subquery())
        query = select(Submission.id).join(newest, and_(Submission.learner == newest.c.learner,
                                                        Submission.created_at == newest.c.created)).where(graded)
    found: list[str] = []
    last = ""
    while True:
        ids = list(db.session.scalars(query.where(Submission.id > last).order_by(Submission.id).limit(BATCH)))
        found += ids
        if len(ids) < BATCH:
            return found
        last = ids[-1]


def start(app: Flask, exercise_id: str, *, scope: str = "latest", requested_by: str | None = None) -> RegradeRun:
    """Write a run and its jobs in one transaction and hand the first batch to the grading queue.

    Refused (with the reason) for an unknown exercise, a folder that does not validate as it is
    now, or while another regrade of the exercise is under way.
    """
    if scope not in SCOPES:
        raise Refused("scope", f"unknown scope {scope!r}: use one of {', '.join(SCOPES)}")
    exercise = app.extensions["exercise_catalog"].get(exercise_id)
    if exercise is None or not exercise.kind.accepts_code:
        raise Refused("unknown", f"no code exercise is called {exercise_id!r}")
    if not _validates_now(app, exercise_id):
        raise Refused("not_validated", f"the folder of {exercise_id} has not passed its check as it is now: "
                      "validate it first (its submissions would be graded by broken tests)")
    close_finished()
    run = RegradeRun(exercise_id=exercise_id, scope=scope, requested_by=requested_by, active=exercise_id,
                     fingerprint=app.extensions["exercise_catalog"].fingerprint(exercise_id))
    db.session.add(run)
    try:
        db.session.flush()
    except IntegrityError:
        db.session.rollback()
        raise Refused("under_way", f"a regrade of {exercise_id} is under way: wait for it to finish") from None
    ids = _submission_ids(exercise_id, scope)
    db.session.add_all(Regrade(run_id=run.id, submission_id=sub_id, exercise_id=exercise_id) for sub_id in ids)
    run.total = len(ids)
    db.session.commit()
    close_finished()  # a run with nothing to regrade is finished at once
    wake(app)
    log.info("regrading %d submission(s) of %s (run %s)", len(ids), exercise_id, run.id)
    return run


def wake(app: Flask) -> None:
    """A token for each regrade a worker may take now (at most REGRADE_MAX_RUNNING at once)."""
    queue = get_queue(app)
    for regrade_id in _queued(app, None)[:max_running(app)]:
        queue.enqueue(REGRADES.name, regrade_id)


def max_running(app: Flask) -> int:
    return max(1, int(app.config.get("REGRADE_MAX_RUNNING") or 1))


def _queued(app: Flask, queue: str | None) -> list[str]:
    """Queued regrades of this grading queue (None: any), oldest first; [] while REGRADE_MAX_RUNNING run."""
    running = db.session.scalar(select(func.count()).select_from(Regrade).where(Regrade.status == "running")) or 0
    free = max_running(app) - running
    rows = [] if free <= 0 else db.session.execute(
        select(Regrade.id, Regrade.exercise_id).where(Regrade.status == "queued")
        .order_by(Regrade.created_at, Regrade.id).limit(max(free, 20))).all()
    db.session.commit()
    if queue is None:
        return [row.id for row in rows]
    catalog = app.extensions["exercise_catalog"]
    return [row.id for row in rows if queue_kind(app, catalog.get(row.exercise_id)) == queue]


def claimable(app: Flask, queue: str | None) -> int:
    """How many regrades of this queue a free worker could claim now (at most the free regrade slots)."""
    return len(_queued(app, queue)[:max_running(app)])


def _claim(app: Flask, regrade_id: str, token: str | None) -> str | None:
    """Claim the regrade if fewer than REGRADE_MAX_RUNNING run; the token (a delivery's, or a new one) or None."""
    delivery, token = token is not None, token or str(uuid.uuid4())
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _CLAIM_LOCK})
    other = aliased(Regrade)
    running = select(func.count()).select_from(other).where(other.status == "running").scalar_subquery()
    return token if jobs.claim(REGRADES, regrade_id, token, running < max_running(app), delivery=delivery) else None


def regrade_next(app: Flask, queue: str | None, token: str | None, grade: Grade) -> str | None:
    """Claim and run the oldest queued regrade of this queue (when no grading or check was claimable); its id."""
    claimed = claim_fairest(lambda: _queued(app, queue), lambda regrade_id: _claim(app, regrade_id, token))
    if claimed is None:
        return None
    regrade_id, claim = claimed
    _run_claimed(app, regrade_id, claim, grade)
    return regrade_id


def result_score(result: dict[str, Any] | None) -> float | None:
    """A results document's score (0 to 1), None when it has none."""
    score = (result or {}).get("score")
    return float(score) if isinstance(score, int | float) else None


def changed_checks(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[str]:
    """Checks whose status differs between two results (one that appears or goes counts), in the new order."""
    def statuses(result: dict[str, Any] | None) -> dict[str, str]:
        tests = (result or {}).get("tests") or []
        return {str(t["check"]): str(t.get("status")) for t in tests if isinstance(t, dict) and t.get("check")}

    before, after = statuses(old), statuses(new)
    every = [*after, *(check for check in before if check not in after)]
    return [check for check in every if before.get(check) != after.get(check)]


def _store(regrade_id: str, token: str, submission_id: str, old: dict[str, Any] | None,
           new: dict[str, Any] | None, note: str | None) -> bool:
    """End the job and replace the submission's result in ONE transaction, only while this claim holds the job."""
    values = {"old_result": old, "old_score": result_score(old), "note": note,
              "new_result": new, "new_score": result_score(new) if new else None,
              "changed": changed_checks(old, new) if new else []}
    ended = db.session.execute(
        update(Regrade).where(Regrade.id == regrade_id, Regrade.claimed_by == token, Regrade.status == "running")
        .values(REGRADES.values(status="done", finished_at=db_now(), **values)))
    if ended.rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        return False
    if new is not None:
        db.session.execute(update(Submission).where(Submission.id == submission_id, Submission.status == "done")
                           .values(result=new))
    db.session.commit()
    return True


def _run_claimed(app: Flask, regrade_id: str, token: str, grade: Grade) -> None:
    row = db.session.get(Regrade, regrade_id)
    sub = db.session.get(Submission, row.submission_id) if row else None
    if row is None or sub is None:
        return
    run_id, old = row.run_id, sub.result
    db.session.commit()
    exercise = app.extensions["exercise_catalog"].get(sub.exercise_id)
    with jobs.beating(app, REGRADES, regrade_id, token):
        new: dict[str, Any] | None = None
        if exercise is None:
            note = "not regraded: the exercise is no longer available"
        else:
            new = grade(app, exercise, sub, token)
            note = None
            if new.get("error_kind") in ("internal", "authoring"):
                # Not the learner's code: their earlier result stays, and the report says why.
                note, new = f"not regraded: {new.get('error_kind')} error ({str(new.get('message', ''))[:120]})", None
        store_finished(app, f"regrade {regrade_id}", {"new": new, "note": note},
                       store=lambda found: _store(regrade_id, token, sub.id, old, found["new"], found["note"]),
                       fallback={"new": None, "note": "not regraded: the result could not be stored"})
    close_finished(RegradeRun.id == run_id)


def active_run(exercise_id: str) -> RegradeRun | None:
    """The exercise's regrade under way, if any."""
    found = db.session.scalar(select(RegradeRun).where(RegradeRun.active == exercise_id))
    db.session.commit()
    return found


def counts(run_id: str) -> dict[str, int]:
    """The run's jobs by status (queued, running, done)."""
    found = {"queued": 0, "running": 0, "done": 0}
    for status, number in db.session.execute(select(Regrade.status, func.count())
                                             .where(Regrade.run_id == run_id).group_by(Regrade.status)):
        found[str(status)] = int(number)
    db.session.commit()
    return found


def resume(app: Flask, exercise_id: str) -> RegradeRun | None:
    """Follow the exercise's active run again: jobs of a dead worker go back to the queue, and get tokens."""
    jobs.reclaim_stale(app, REGRADES)
    close_finished()
    run = active_run(exercise_id)
    if run is not None:
        wake(app)
    return run


def latest_of(submission_id: str) -> Regrade | None:
    """The submission's newest regrade that gave it a new result (its note for the learner), if any."""
    return db.session.scalar(
        select(Regrade).where(Regrade.submission_id == submission_id, Regrade.status == "done",
                              Regrade.new_score.is_not(None))
        .order_by(Regrade.finished_at.desc()).limit(1))
