"""Folder checks (solution passes, starter fails) as background jobs on the grading queues, where gradings run.

A check is queued when a folder is new or changed (the sweep, or the in-process watch, sees it
by its fingerprint), when an instructor asks for one, or when a learner's grading meets the
folder's broken tests. A worker claims a check only when no learner's grading of its queue is
claimable, and at most CHECK_MAX_RUNNING checks run at once, so checks never hold every worker.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, inspect, select, text
from sqlalchemy.orm import aliased

from app.extensions import db
from app.grading import jobs
from app.grading.fairness import claim_fairest
from app.grading.handle import get_queue
from app.grading.kinds import CHECKS
from app.grading.routing import queue_kind
from app.grading.storing import store_finished
from app.models import ExerciseValidation, utcnow

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)
# A PostgreSQL advisory lock held by each check's claim, so two claims count the running checks in turn.
_CLAIM_LOCK = int.from_bytes(hashlib.sha256(b"learnai:check-claim").digest()[:8], "big", signed=True)


def _check_function(app: Flask) -> Callable[..., Any]:
    injected = app.config.get("VALIDATE_FUNCTION")
    if injected is not None:
        return injected  # type: ignore[no-any-return]
    from grader.api import check_exercise  # late: the grader loads torch on demand

    return check_exercise


def request(app: Flask, exercise_ids: Iterable[str]) -> list[str]:
    """Queue a check of each folder and hand each to the grading queue; one already waiting or running is left."""
    queued = []
    for exercise_id in exercise_ids:
        row = db.session.get(ExerciseValidation, exercise_id)
        if row is not None and row.state in ("queued", "running"):
            continue  # a lost one is taken over by the sweep (its heartbeat), not asked for twice
        if row is None:
            row = ExerciseValidation(exercise_id=exercise_id)
            db.session.add(row)
        row.state, row.requested_at, row.attempts = "queued", utcnow(), 0
        queued.append(exercise_id)
    db.session.commit()
    queue = get_queue(app)
    for exercise_id in queued:
        queue.enqueue(CHECKS.name, exercise_id)
    return queued


def is_stale(row: ExerciseValidation, fingerprint: str | None) -> bool:
    """A finished verdict about other contents than the folder holds now."""
    return row.state == "done" and fingerprint is not None and row.fingerprint != fingerprint


def unchecked(app: Flask) -> list[str]:
    """Folders with no verdict about their contents now: new ones (never checked) and changed ones."""
    catalog = app.extensions["exercise_catalog"]
    rows = {row.exercise_id: row for row in db.session.scalars(select(ExerciseValidation))}
    db.session.commit()
    found = []
    for exercise in catalog.exercises().exercises.values():
        if not exercise.kind.accepts_code:
            continue
        row = rows.get(exercise.id)
        if row is None or is_stale(row, catalog.fingerprint(exercise.id)):
            found.append(exercise.id)
    return sorted(found)


def check_seen(app: Flask) -> list[str]:
    """Queue a check of every new or changed folder (the sweep calls this: no page needs to be opened)."""
    with app.app_context():
        if not inspect(db.engine).has_table(ExerciseValidation.__tablename__):
            return []  # a fresh database before `flask db upgrade`
        wanted = unchecked(app)
        queued = request(app, wanted) if wanted else []
    if queued:
        log.info("checking %d new or changed folder(s): %s", len(queued), queued)
    return queued


def _max_running(app: Flask) -> int:
    return max(1, int(app.config.get("CHECK_MAX_RUNNING") or 1))


def _queued(app: Flask, queue: str | None) -> list[str]:
    """Queued checks of this grading queue (None: any), oldest request first; [] while CHECK_MAX_RUNNING run."""
    running = db.session.scalar(select(func.count()).select_from(ExerciseValidation)
                                .where(ExerciseValidation.state == "running")) or 0
    ids = [] if running >= _max_running(app) else list(db.session.scalars(
        select(ExerciseValidation.exercise_id).where(ExerciseValidation.state == "queued")
        .order_by(ExerciseValidation.requested_at)))
    db.session.commit()
    if queue is None:
        return ids
    catalog = app.extensions["exercise_catalog"]
    return [exercise_id for exercise_id in ids if queue_kind(app, catalog.get(exercise_id)) == queue]


def claimable(app: Flask, queue: str | None) -> int:
    """How many checks of this queue a free worker could claim now (at most the free check slots)."""
    return len(_queued(app, queue)[:_max_running(app)])


def _claim(app: Flask, exercise_id: str, token: str | None = None) -> str | None:
    """Claim the check if fewer than CHECK_MAX_RUNNING run; the claim's token (a delivery's, or a new one) or None."""
    delivery, token = token is not None, token or str(uuid.uuid4())
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _CLAIM_LOCK})
    other = aliased(ExerciseValidation)
    running = select(func.count()).select_from(other).where(other.state == "running").scalar_subquery()
    return token if jobs.claim(CHECKS, exercise_id, token, running < _max_running(app), delivery=delivery) else None


def check_next(app: Flask, queue: str | None, token: str | None = None) -> str | None:
    """Claim and run the oldest queued check of this queue (called when no grading was claimable); its id."""
    claimed = claim_fairest(lambda: _queued(app, queue), lambda exercise_id: _claim(app, exercise_id, token))
    if claimed is None:
        return None
    exercise_id, claim = claimed
    _run_claimed(app, exercise_id, claim)
    return exercise_id


def _run_claimed(app: Flask, exercise_id: str, token: str) -> None:
    catalog = app.extensions["exercise_catalog"]
    exercise = catalog.get(exercise_id)
    # Taken before the check: a change while it runs leaves the verdict stale, so it runs again.
    fingerprint = catalog.fingerprint(exercise_id)
    broken = False
    # The heartbeat goes on while the verdict waits for the database (as a grading's result does).
    with jobs.beating(app, CHECKS, exercise_id, token):
        if exercise is None:
            ok, problems = False, ["the folder no longer loads; see the load errors above"]
        else:
            try:
                report = _check_function(app)(exercise, sandbox=app.config["GRADER_SANDBOX"])
                ok, problems, broken = bool(report.ok), list(report.problems), bool(report.broken)
            except Exception as exc:  # the check itself broke: say so, do not stay "running"
                log.exception("the check of %s crashed", exercise_id)
                ok, problems = False, [f"could not be checked: {type(exc).__name__}"]
        verdict = {"ok": ok, "problems": problems, "fingerprint": fingerprint, "broken": broken}
        store_finished(app, f"the check of {exercise_id}", verdict,
                       store=lambda found: jobs.store(CHECKS, exercise_id, token, **found),
                       fallback={**verdict, "ok": False, "problems": ["the verdict could not be stored"]})


def record_authoring_error(app: Flask, exercise_id: str, doc: dict[str, Any]) -> None:
    """A learner's grading met the folder's broken tests: keep the folder from learners now.

    Stored as a verdict about the folder's current contents, like a check's: it stops hiding
    the folder when a file changes, and the folder is then checked again.
    """
    fingerprint = app.extensions["exercise_catalog"].fingerprint(exercise_id)
    row = db.session.get(ExerciseValidation, exercise_id)
    if row is None:
        row = ExerciseValidation(exercise_id=exercise_id)
        db.session.add(row)
    elif row.state in ("queued", "running"):
        return  # a check is under way and will say the same, with every problem
    row.state, row.ok, row.broken, row.fingerprint = "done", False, True, fingerprint
    row.problems = [f"authoring error (met by a learner's grading): {doc.get('message', '')}"]
    row.requested_at = row.checked_at = utcnow()
    db.session.commit()
    log.warning("exercise %s is broken (authoring error in a learner's grading); hidden from learners",
                exercise_id)
