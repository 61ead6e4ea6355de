"""Runs (the Run button) as jobs: taken in the fair order, run in the sandbox off the web threads, stoppable."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import current_app
from sqlalchemy import delete, func, select, update

from app.extensions import db
from app.grading import jobs
from app.grading.admission import PENDING
from app.grading.clock import db_now
from app.grading.fairness import claim_fairest, fair_ids
from app.grading.kinds import RUNS
from app.grading.running_cap import lock_key, run_cap, under_cap, wake_runs
from app.grading.storing import store_finished
from app.models import Run, utcnow
from grader.api import checked_run_document, run_failed, run_stopped

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)

RunFunction = Callable[..., dict[str, Any]]
# Bounds on what one Run stores, whatever the exercise's output limit says (the sandbox
# already cuts output at the exercise's output_kb; this is the database's own guard).
MAX_OUTPUT_CHARS = 256 * 1024
MAX_TRACEBACK_CHARS = 32 * 1024
MAX_MESSAGE_CHARS = 4 * 1024
GONE = "the exercise is no longer available"


def _run_function(app: Flask) -> RunFunction:
    injected = app.config.get("RUN_FUNCTION")  # tests may inject one; the real one by default
    if injected is not None:
        return injected  # type: ignore[no-any-return]
    from grader.api import run_code  # imported late: the grader loads torch on demand

    return run_code


def run_order(app: Flask) -> list[str]:
    """Queued Run ids, fairest first (the same rule as grading's, app.grading.fairness)."""
    queued = db.session.execute(
        select(Run.id, Run.learner, Run.anon_address, Run.created_at).where(Run.status == "queued")
    ).all()
    if not queued:
        db.session.commit()
        return []
    return fair_ids(Run, queued, run_cap(app.config))


def _claim(run_id: str, token: str | None = None) -> str | None:
    """queued -> running (app.grading.jobs.claim, the database's clock), the running caps allowing
    (app.grading.running_cap); the token is the right to store the output.

    Celery workers pass their message's id, so a worker whose pool process died ends the Run at once.
    """
    delivery, token = token is not None, token or str(uuid.uuid4())
    lock_key(run_id, Run)
    claimed = jobs.claim(RUNS, run_id, token, under_cap(run_cap(current_app.config), Run), delivery=delivery)
    return token if claimed else None


def bounded(doc: dict[str, Any]) -> dict[str, Any]:
    """The run document cut to the sizes the database keeps (MAX_*_CHARS)."""
    doc = dict(doc)
    output = doc.get("output") or ""
    if len(output) > MAX_OUTPUT_CHARS:
        doc["output"] = output[:MAX_OUTPUT_CHARS] + "\n[…]"
    error = doc.get("error")
    if isinstance(error, dict):
        error = dict(error)
        error["message"] = str(error.get("message", ""))[:MAX_MESSAGE_CHARS]
        error["traceback"] = str(error.get("traceback", ""))[-MAX_TRACEBACK_CHARS:]
        doc["error"] = error
    return doc


def _execute(app: Flask, run: Run, cancel: threading.Event) -> dict[str, Any]:
    exercise = app.extensions["exercise_catalog"].get(run.exercise_id)
    if exercise is None:
        return run_failed(run.lang, GONE)
    try:
        doc = _run_function(app)(exercise, run.code, lang=run.lang,
                                 sandbox=app.config["GRADER_SANDBOX"], cancel=cancel)
        return bounded(checked_run_document(doc))
    except Exception as exc:  # run_code promises not to raise nor to return junk; if it does, it is ours
        log.exception("running %s failed", run.id)
        return run_failed(run.lang, type(exc).__name__)


def _store(run_id: str, token: str, doc: dict[str, Any]) -> bool:
    return jobs.store(RUNS, run_id, token, result=doc)


def _run_claimed(app: Flask, run_id: str, token: str) -> None:
    run = db.session.get(Run, run_id)
    if run is None:
        return
    cancel = threading.Event()
    # Watched every RUN_WATCH_S: a Stop (the row ended) or a takeover kills the sandbox at once.
    # The heartbeat goes on while the output waits for the database (as a grading's result does).
    with jobs.beating(app, RUNS, run_id, token, on_lost=cancel.set, watch_s=float(app.config["RUN_WATCH_S"])):
        doc = _execute(app, run, cancel)
        store_finished(app, f"run {run_id}", doc, store=lambda document: _store(run_id, token, document),
                       fallback=run_failed(run.lang, "the output could not be stored"))


def run_next(app: Flask, token: str | None = None) -> str | None:
    """Claim and run the fairest queued Run; returns its id (None: nothing to run).

    Like grading, each enqueued message is a token for one Run, whichever is fairest then.
    """
    with app.app_context():
        claimed = claim_fairest(lambda: run_order(app), lambda run_id: _claim(run_id, token))
        if claimed is None:
            return None
        run_id, token = claimed
        try:
            _run_claimed(app, run_id, token)
        finally:
            wake_runs(app)
        return run_id


def stop(run: Run) -> bool:
    """End a queued or running Run now (the learner's Stop); False when it had already ended.

    The row is ended here, so the learner sees "stopped" at once and their cap frees; the
    worker's watch sees the row is no longer its own and kills the sandbox.
    """
    started = run.started_at
    # Only the message's "after N s" reads this host's clock; the row's times are the database's.
    seconds = (utcnow() - started).total_seconds() if started is not None else 0.0
    ended = db.session.execute(
        update(Run).where(Run.id == run.id, Run.status.in_(PENDING))
        .values(status="done", result=run_stopped(run.lang, max(0.0, seconds)), finished_at=db_now(),
                claimed_by=None)
    )
    db.session.commit()
    return ended.rowcount == 1  # type: ignore[attr-defined]


def forget(app: Flask, learner: str) -> None:
    """Delete the learner's ended Runs (only the latest is ever shown) and anyone's past RUN_KEEP_S."""
    cutoff = db_now(float(app.config["RUN_KEEP_S"]))
    db.session.execute(delete(Run).where(Run.status == "done", Run.learner == learner))
    db.session.execute(delete(Run).where(Run.status == "done", Run.created_at < cutoff))
    db.session.commit()


def end_stale(app: Flask) -> list[str]:
    """End running Runs whose worker stopped beating for GRADING_STALE_AFTER_S, by the database's clock.

    A Run is not run again (app.grading.kinds.RUNS): the learner presses Run once more.
    """
    return jobs.reclaim_stale(app, RUNS).ended


def queued(app: Flask) -> int:
    """Runs waiting for a token's pick (the sweep's count of the tokens the Run lane needs)."""
    with app.app_context():
        count = int(db.session.scalar(select(func.count()).select_from(Run).where(Run.status == "queued")) or 0)
        db.session.commit()
    return count


def recover(app: Flask) -> list[str]:
    """At an in-process start: end Runs the stopped server left running; the queued ones' ids."""
    return jobs.restart(app, RUNS)
