"""Worker upkeep: take over jobs whose worker died, re-publish the tokens queued jobs lack (one sweeper at a time)."""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from app.grading import checks, jobs, runs
from app.grading.admission import forget_held
from app.grading.lost import reclaim_stale
from app.grading.routing import BACKGROUND_QUEUES, GRADING_QUEUE_OF, QUEUES, RUN_QUEUE
from app.grading.worker import claimable_background, claimable_jobs
from grader.api import remove_orphan_sandboxes, sandbox_isolated

if TYPE_CHECKING:
    from flask import Flask

    from app.grading.celery_queue import CeleryQueue

log = logging.getLogger(__name__)
# How long a token takes from Redis's list to kombu's unacked hash, with room to spare.
IN_FLIGHT_S = 0.2


def claimable_by_kind(app: Flask) -> dict[str, int]:
    """Queued jobs a free worker could claim now, per Celery queue (grading and background): jobs of
    keys at their running cap wait for one of their key's gradings to end (which publishes their
    token, top_up), not for a sweep."""
    return {name: claimable_in(app, name) for name in (*QUEUES, *BACKGROUND_QUEUES.values())}


def claimable_in(app: Flask, name: str) -> int:
    """Queued jobs a free worker of this Celery queue could claim now."""
    with app.app_context():
        if name in GRADING_QUEUE_OF:
            return claimable_background(app, GRADING_QUEUE_OF[name])
        return claimable_jobs(app, name)


def unspent(app: Flask, reserved: list[str]) -> int:
    """How many of these delivered tokens will still claim a job: those that never claimed one.

    A token that claimed a job is spent (recorded with its claim, app.grading.jobs.claim),
    whether its job runs, ended, or died with its worker; and it stays spent when its job is
    given back and claimed by another token (a job's claimed_by no longer names it then). A
    worker that reconnects after a Redis loss reserves tokens while it is busy: without counting
    those, every round would publish them again.
    """
    if not reserved:
        return 0
    with app.app_context():
        return len(set(reserved) - jobs.spent(reserved))


def sweep(app: Flask, queue: CeleryQueue) -> int | None:
    """One pass; returns the tokens published, None when another worker swept this round.

    A queued job needs a token in Redis. Tokens are lost when Redis restarts without its data,
    when the web process dies between storing and publishing, when a job is reclaimed, or when a
    task fails before its pick (the database away); a surplus token costs one empty look at the
    database. Only one worker sweeps per round (a Redis lock that expires before the next round),
    so N workers do not publish N times the missing tokens after Redis lost them.
    """
    if not queue.try_lock("grading-sweep", 0.8 * float(app.config["GRADING_SWEEP_S"])):
        return None
    for job_id in reclaim_stale(app):
        log.info("job %s goes back to the queue", job_id)
    with app.app_context():
        # An admission takes milliseconds; a minute leaves room for a request that stalled.
        if forgotten := forget_held(60):
            log.warning("deleted %d submission(s) left half-admitted by a web process", forgotten)
        # A spent token is only looked up while its delivery may still sit in kombu's unacked hash.
        jobs.forget_spent(float(app.config["GRADING_VISIBILITY_TIMEOUT_S"]) + 60)
    if app.config["CHECK_SEEN_FOLDERS"]:
        checks.check_seen(app)  # a new or changed folder is checked without anyone opening a page
    published = sum(top_up(app, queue, kind, claimable) for kind, claimable in claimable_by_kind(app).items())
    published += top_up(app, queue, RUN_QUEUE, runs.queued(app))
    if published:
        log.warning("re-published %d token(s) for queued jobs", published)
    return published


def top_up(app: Flask, queue: CeleryQueue, kind: str, claimable: int | None = None) -> int:
    """Publish the tokens this Celery queue (grading or background) lacks for the jobs a worker could claim; how many.

    Called by the sweep, and by a worker whose grading just ended (CeleryQueue.wake): its key
    may run another job now, and that job's token may have been spent while the key was at its
    cap. Tokens in Redis and delivered tokens that never claimed a job are counted, so this
    publishes only what is missing.
    """
    if claimable is None:
        claimable = claimable_in(app, kind)
    missing = _shortfall(app, queue, kind, claimable)
    if missing > 0:
        # A token a worker is just taking is, for a moment, neither in Redis's list nor in
        # kombu's unacked hash (popped, not yet recorded): counted as missing, it would be
        # published twice. Count again once it has landed; publish the smaller shortfall.
        time.sleep(IN_FLIGHT_S)
        missing = min(missing, _shortfall(app, queue, kind, claimable))
    for _ in range(max(0, missing)):
        queue.publish(kind)
    return max(0, missing)


def _shortfall(app: Flask, queue: CeleryQueue, kind: str, claimable: int) -> int:
    """Claimable jobs of this queue without a token: in Redis or delivered and never spent."""
    return claimable - queue.backlog(kind) - unspent(app, queue.reserved(kind)) if claimable else 0


def start(app: Flask, queue: CeleryQueue) -> threading.Thread:
    """Sweep at start (recovery of what was left queued, sandboxes of dead workers) and then every GRADING_SWEEP_S."""
    every = float(app.config["GRADING_SWEEP_S"])

    isolated = sandbox_isolated(app.config["GRADER_SANDBOX"])

    def loop() -> None:
        while True:
            try:
                # Every worker, every round: the web's footer says where learners' code runs.
                queue.report_isolation(isolated, 3 * every)
            except Exception:
                log.warning("could not report this worker's sandbox", exc_info=True)
            try:
                sweep(app, queue)
            except Exception:  # Redis or the database away for a moment: try again next round
                log.warning("grading sweep failed", exc_info=True)
            try:
                # Per Docker engine, not per class, so every worker does it (no lock): the
                # sandbox containers of workers that died (docker only; a no-op otherwise).
                remove_orphan_sandboxes(app.config["GRADER_SANDBOX"])
            except Exception:
                log.warning("removing dead workers' sandboxes failed", exc_info=True)
            threading.Event().wait(every)

    thread = threading.Thread(target=loop, name="grading-sweep", daemon=True)
    thread.start()
    return thread
