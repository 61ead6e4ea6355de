"""Exercise-folder validation in the background: grading solution and starter takes seconds.

Each verdict is stored with the fingerprint of the folder it judged (grader.fingerprint); a folder
whose files changed since is stale and is checked again, in this same background lane.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import update

from app.extensions import db
from app.instructor.models import ExerciseValidation
from app.models import utcnow

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)
STALE_AFTER = timedelta(minutes=30)


def _check_function(app: Flask) -> Callable[..., Any]:
    injected = app.config.get("VALIDATE_FUNCTION")
    if injected is not None:
        return injected  # type: ignore[no-any-return]
    from grader.api import check_exercise  # late: the grader loads torch on demand

    return check_exercise


class ValidationRunner:
    """One background thread: a validation never slows a page, and two never fight for CPUs."""

    def __init__(self, app: Flask):
        self.app = app
        self._pid = os.getpid()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="validate")

    def request(self, exercise_ids: Iterable[str]) -> list[str]:
        """Queue a check of each folder (one already waiting is not queued twice)."""
        if self._pid != os.getpid():  # forked by gunicorn: the parent's thread is not here
            self._pid = os.getpid()
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="validate")
        queued = []
        for exercise_id in exercise_ids:
            row = db.session.get(ExerciseValidation, exercise_id)
            if row is not None and row.state in ("queued", "running") and not _stale(row):
                continue
            if row is None:
                row = ExerciseValidation(exercise_id=exercise_id)
                db.session.add(row)
            row.state, row.requested_at = "queued", utcnow()
            queued.append(exercise_id)
        db.session.commit()
        for exercise_id in queued:
            self._pool.submit(run_one, self.app, exercise_id).add_done_callback(_log_crash)
        return queued

    def shutdown(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=not wait)


def _stale(row: ExerciseValidation) -> bool:
    # A check waiting this long was lost with a stopped server; it may be asked for again.
    requested = row.requested_at
    if requested.tzinfo is None:  # SQLite gives naive datetimes back (stored as UTC)
        requested = requested.replace(tzinfo=UTC)
    return utcnow() - requested > STALE_AFTER


def run_one(app: Flask, exercise_id: str) -> None:
    """Check one folder through the grader and store the outcome."""
    with app.app_context():
        db.session.execute(update(ExerciseValidation)
                           .where(ExerciseValidation.exercise_id == exercise_id)
                           .values(state="running"))
        db.session.commit()
        catalog = app.extensions["exercise_catalog"]
        exercise = catalog.get(exercise_id)
        # Taken before the check: a change while it runs leaves the verdict stale, so it runs again.
        fingerprint = catalog.fingerprint(exercise_id)
        broken = False
        if exercise is None:
            ok, problems = False, ["the folder no longer loads; see the load errors above"]
        else:
            try:
                report = _check_function(app)(exercise, sandbox=app.config["GRADER_SANDBOX"])
                ok, problems, broken = bool(report.ok), list(report.problems), bool(report.broken)
            except Exception as exc:  # the check itself broke: say so, do not stay "running"
                log.exception("validation of %s crashed", exercise_id)
                ok, problems = False, [f"could not be checked: {type(exc).__name__}"]
        row = db.session.get(ExerciseValidation, exercise_id)
        if row is not None:
            row.state, row.ok, row.problems, row.checked_at = "done", ok, problems, utcnow()
            row.fingerprint, row.broken = fingerprint, broken
            db.session.commit()


def is_stale(row: ExerciseValidation, fingerprint: str | None) -> bool:
    """A finished verdict about other contents than the folder holds now."""
    return row.state == "done" and fingerprint is not None and row.fingerprint != fingerprint


def recheck_changed(app: Flask, rows: Iterable[ExerciseValidation]) -> list[str]:
    """Queue a background check of every folder whose stored verdict is stale; the ids queued."""
    catalog = app.extensions["exercise_catalog"]
    stale = [row.exercise_id for row in rows if is_stale(row, catalog.fingerprint(row.exercise_id))]
    return get_runner(app).request(stale) if stale else []


def record_authoring_error(app: Flask, exercise_id: str, doc: dict[str, Any]) -> None:
    """A learner's grading met the folder's broken tests: keep the folder from learners now.

    Stored as a verdict about the folder's current contents, like a validation's: it stops
    hiding the folder when a file changes, and the validation page then checks it again.
    """
    fingerprint = app.extensions["exercise_catalog"].fingerprint(exercise_id)
    row = db.session.get(ExerciseValidation, exercise_id)
    if row is None:
        row = ExerciseValidation(exercise_id=exercise_id)
        db.session.add(row)
    elif row.state in ("queued", "running"):
        return  # a validation is under way and will say the same, with every problem
    row.state, row.ok, row.broken, row.fingerprint = "done", False, True, fingerprint
    row.problems = [f"authoring error (met by a learner's grading): {doc.get('message', '')}"]
    row.requested_at = row.checked_at = utcnow()
    db.session.commit()
    log.warning("exercise %s is broken (authoring error in a learner's grading); hidden from learners",
                exercise_id)


def _log_crash(future: Future[None]) -> None:
    error = future.exception()
    if error is not None:
        log.error("validation worker crashed", exc_info=error)


def init_app(app: Flask) -> None:
    app.extensions["validation_runner"] = ValidationRunner(app)


def get_runner(app: Flask) -> ValidationRunner:
    runner: ValidationRunner = app.extensions["validation_runner"]
    return runner
