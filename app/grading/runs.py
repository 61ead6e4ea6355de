"""Runs (the Run button) as jobs: taken in the fair order, run in the sandbox off the web threads, stoppable."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from datetime import UTC, timedelta
from typing import TYPE_CHECKING, Any

from flask import current_app
from sqlalchemy import delete, inspect, select, update

from app.extensions import db
from app.grading.admission import PENDING
from app.grading.fairness import claim_fairest, fair_ids
from app.grading.routing import RUN_QUEUE
from app.grading.running_cap import lock_key, run_cap, under_cap, wake_runs
from app.models import Run, utcnow
from grader.api import checked_run_document, run_failed, run_stopped

if TYPE_CHECKING:
    from collections.abc import Iterator

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


def _claim(run_id: str) -> str | None:
    """queued -> running in one statement, the running caps allowing (app.grading.running_cap);
    the token is the right to store the output."""
    token, now = str(uuid.uuid4()), utcnow()
    lock_key(run_id, Run)
    claimed = db.session.execute(
        update(Run).where(Run.id == run_id, Run.status == "queued",
                          under_cap(run_cap(current_app.config), Run))
        .values(status="running", started_at=now, heartbeat_at=now, claimed_by=token)
    )
    db.session.commit()
    return token if claimed.rowcount == 1 else None  # type: ignore[attr-defined]


def _still_ours(run_id: str, token: str) -> bool:
    row = db.session.execute(select(Run.status, Run.claimed_by).where(Run.id == run_id)).first()
    db.session.commit()
    return row is not None and row.status == "running" and row.claimed_by == token


@contextmanager
def _watch(app: Flask, run_id: str, token: str, cancel: threading.Event) -> Iterator[None]:
    """While the Run runs: set `cancel` as soon as it is stopped (or taken over), beat its heartbeat.

    The database is how a Stop reaches the worker, wherever it runs (a thread here, a Celery
    host elsewhere): the Stop request ends the row, and this loop sees it within RUN_WATCH_S.
    """
    every = float(app.config["RUN_WATCH_S"])
    beat_every = float(app.config.get("GRADING_HEARTBEAT_S", 5))
    done = threading.Event()

    def watch() -> None:
        last_beat = time.monotonic()
        while not done.wait(every):
            try:
                with app.app_context():
                    if not _still_ours(run_id, token):
                        cancel.set()
                        return
                    if time.monotonic() - last_beat >= beat_every:
                        db.session.execute(update(Run).where(Run.id == run_id, Run.claimed_by == token)
                                           .values(heartbeat_at=utcnow()))
                        db.session.commit()
                        last_beat = time.monotonic()
            except Exception:  # a missed look is retried; a long outage lets the sweep end the Run
                log.warning("watching run %s failed", run_id, exc_info=True)

    thread = threading.Thread(target=watch, name="run-watch", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=every + 5)


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
    stored = db.session.execute(
        update(Run).where(Run.id == run_id, Run.claimed_by == token, Run.status == "running")
        .values(result=doc, status="done", finished_at=utcnow())
    )
    db.session.commit()
    return stored.rowcount == 1  # type: ignore[attr-defined]


def _run_claimed(app: Flask, run_id: str, token: str) -> None:
    run = db.session.get(Run, run_id)
    if run is None:
        return
    cancel = threading.Event()
    with _watch(app, run_id, token, cancel):
        doc = _execute(app, run, cancel)
    try:
        if not _store(run_id, token, doc):
            log.info("run %s was stopped or taken over; its output is dropped", run_id)
    except Exception:
        log.exception("could not store the output of run %s", run_id)
        db.session.rollback()
        _store(run_id, token, run_failed(run.lang, "the output could not be stored"))


def run_next(app: Flask) -> str | None:
    """Claim and run the fairest queued Run; returns its id (None: nothing to run).

    Like grading, each enqueued message is a token for one Run, whichever is fairest then.
    """
    with app.app_context():
        claimed = claim_fairest(lambda: run_order(app), _claim)
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
    if started is not None and started.tzinfo is None:
        started = started.replace(tzinfo=UTC)
    seconds = (utcnow() - started).total_seconds() if started is not None else 0.0
    ended = db.session.execute(
        update(Run).where(Run.id == run.id, Run.status.in_(PENDING))
        .values(status="done", result=run_stopped(run.lang, max(0.0, seconds)), finished_at=utcnow(),
                claimed_by=None)
    )
    db.session.commit()
    return ended.rowcount == 1  # type: ignore[attr-defined]


def forget(app: Flask, learner: str) -> None:
    """Delete the learner's ended Runs (only the latest is ever shown) and anyone's past RUN_KEEP_S."""
    cutoff = utcnow() - timedelta(seconds=float(app.config["RUN_KEEP_S"]))
    db.session.execute(delete(Run).where(Run.status == "done", Run.learner == learner))
    db.session.execute(delete(Run).where(Run.status == "done", Run.created_at < cutoff))
    db.session.commit()


def end_stale(app: Flask, *, everything_running: bool = False) -> list[str]:
    """End running Runs whose worker stopped beating (or all running ones, at an in-process start).

    A Run is not run again: the learner presses Run once more, and an endless one never runs twice.
    """
    cutoff = utcnow() - timedelta(seconds=float(app.config.get("GRADING_STALE_AFTER_S", 60)))
    with app.app_context():
        query = select(Run.id, Run.lang).where(Run.status == "running")
        if not everything_running:
            query = query.where(Run.heartbeat_at < cutoff)
        stale = db.session.execute(query).all()
        for run_id, lang in stale:
            condition = [Run.id == run_id, Run.status == "running"]
            if not everything_running:
                condition.append(Run.heartbeat_at < cutoff)
            db.session.execute(update(Run).where(*condition).values(
                status="done", finished_at=utcnow(), claimed_by=None,
                result=run_failed(lang, "the server running it stopped")))
        db.session.commit()
    if stale:
        log.warning("ended %d run(s) whose worker stopped", len(stale))
    return [run_id for run_id, _ in stale]


def sweep(app: Flask, queue: Any) -> int:
    """Celery upkeep (app.grading.maintenance): end Runs whose worker died, top up lost Run tokens.

    Returns the tokens published.
    """
    end_stale(app)
    with app.app_context():
        queued = int(db.session.query(Run).filter(Run.status == "queued").count())
        db.session.commit()
    missing = max(0, queued - queue.backlog(RUN_QUEUE))
    for _ in range(missing):
        queue.publish_run()
    return missing


def recover(app: Flask, enqueue: Callable[[str], None]) -> list[str]:
    """At an in-process start: end Runs the stopped server left running, re-enqueue queued ones."""
    with app.app_context():
        if not inspect(db.engine).has_table(Run.__tablename__):
            return []  # a fresh database before `flask db upgrade`
    end_stale(app, everything_running=True)
    with app.app_context():
        ids = list(db.session.scalars(select(Run.id).where(Run.status == "queued")
                                      .order_by(Run.created_at)))
    for run_id in ids:
        enqueue(run_id)
    return ids
