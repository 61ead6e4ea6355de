"""The grading queue interface and its in-process implementation (a thread pool)."""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol

from app.grading.handle import get_queue
from grader.api import sandbox_isolated as grader_sandbox_isolated
from grader.api import warm_up as grader_warm_up

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)


class GradingQueue(Protocol):
    """Where the web app hands a stored submission over for grading.

    The in-process pool fits one machine; a distributed queue (Celery with Redis)
    implements the same method and runs grading.worker.grade_submission on GPU hosts.
    """

    def enqueue(self, submission_id: str) -> None: ...

    def enqueue_run(self, run_id: str) -> None:
        """A token for one Run (app.grading.runs), in the Run lane: apart from grading's slots."""
        ...


class InProcessQueue:
    """Pools of worker threads inside the web process: GRADER_WORKERS for grading, RUN_WORKERS for Runs.

    Each enqueue is a token for one grading: a free thread grades the fairest queued job. Runs
    have their own lane, so a Run never waits behind a grading nor takes its thread, and the
    other way round; web threads only store and enqueue.
    """

    grades_in_this_process = True  # at start-up, a job marked running here has no live worker

    def __init__(self, app: Flask, workers: int = 1, run_workers: int = 1):
        self.app = app
        self.workers = max(1, workers)
        self.run_workers = max(1, run_workers)
        self._pid = os.getpid()
        # Threads start lazily on the first job, so CLI commands never spawn any.
        self._pool, self._runs = self._new_pools()

    def _new_pools(self) -> tuple[ThreadPoolExecutor, ThreadPoolExecutor]:
        return (ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="grader"),
                ThreadPoolExecutor(max_workers=self.run_workers, thread_name_prefix="runner"))

    def _forked(self) -> None:
        if self._pid != os.getpid():
            # Forked (gunicorn --preload): the parent's threads do not exist in this process,
            # and a pool that counts them as busy would never run a job.
            self._pid = os.getpid()
            self._pool, self._runs = self._new_pools()

    def enqueue(self, submission_id: str) -> None:
        from app.grading.worker import grade_next

        self._forked()
        future = self._pool.submit(grade_next, self.app, None)
        future.add_done_callback(_log_crash)

    def wake(self, kind: str | None) -> None:
        """A grading ended (in a pool thread, in its app context): one more token if a job may run now.

        A token that came while every waiting job's key was at its running cap found nothing;
        the job that ending frees must not wait for the next submission while a thread idles.
        A surplus token costs one look at the queue.
        """
        from app.grading.worker import claimable_jobs, grade_next

        if claimable_jobs(self.app, None) > 0:
            self._forked()
            try:
                future = self._pool.submit(grade_next, self.app, None)
            except RuntimeError:  # shutting down: what is queued is recovered at the next start
                return
            future.add_done_callback(_log_crash)

    def enqueue_run(self, run_id: str) -> None:
        from app.grading.runs import run_next

        self._forked()
        future = self._runs.submit(run_next, self.app)
        future.add_done_callback(_log_crash)

    def recover_runs(self) -> list[str]:
        """At start: Runs left running have no thread here any more; queued ones get theirs."""
        from app.grading.runs import recover

        return recover(self.app, self.enqueue_run)

    def shutdown(self, wait: bool = True) -> None:
        self._stop_runs()  # a shutdown never waits for an endless Run: its output has no reader
        self._pool.shutdown(wait=wait, cancel_futures=not wait)
        self._runs.shutdown(wait=wait, cancel_futures=not wait)

    def _stop_runs(self) -> None:
        """Stop every Run still going, so a shutdown never waits for an endless one."""
        from app.extensions import db
        from app.grading import runs
        from app.models import Run

        try:
            with self.app.app_context():
                for run in db.session.query(Run).filter(Run.status.in_(("queued", "running"))).all():
                    runs.stop(run)
        except Exception:  # no runs table yet (before `flask db upgrade`), or the database is gone
            log.debug("could not stop the runs at shutdown", exc_info=True)


def _log_crash(future: Future[None]) -> None:
    error = future.exception()
    if error is not None:
        log.error("grading worker crashed", exc_info=error)


def init_app(app: Flask) -> None:
    """Build the configured queue (GRADING_QUEUE: a factory taking the app) and keep it.

    CELERY_BROKER_URL switches the default to Celery workers; unset, grading stays in-process.
    """
    factory = app.config.get("GRADING_QUEUE")
    if factory is None and app.config.get("CELERY_BROKER_URL"):
        from app.grading.celery_queue import CeleryQueue

        factory = CeleryQueue
    queue = factory(app) if factory else InProcessQueue(app, app.config["GRADER_WORKERS"],
                                                        app.config["RUN_WORKERS"])
    app.extensions["grading_queue"] = queue

    @app.context_processor
    def _sandbox_state() -> dict[str, object]:
        # Lazy: only pages that show it pay for asking the sandbox (docker's answer is cached).
        def sandbox_isolated() -> bool:
            return grader_sandbox_isolated(app.config["GRADER_SANDBOX"])

        return {"sandbox_isolated": sandbox_isolated}


def warn_if_not_isolated(app: Flask) -> bool:
    """Say at start when learners' code will run without isolation; whether it is isolated."""
    isolated = grader_sandbox_isolated(app.config["GRADER_SANDBOX"])
    if not isolated:
        log.warning("THE GRADING SANDBOX IS NOT ISOLATED (GRADER_SANDBOX=%s): learners' code runs "
                    "without the job jail, which needs Linux with Landlock (5.13 or later; 6.12 or "
                    "later for every protection) and libseccomp, or without docker. See docs/sandbox.md.",
                    app.config["GRADER_SANDBOX"])
    return isolated


def warm_up_in_background(app: Flask) -> None:
    """Start this process's warm sandboxes now, without holding up the start (Celery workers do
    it in their process-init hook)."""
    sandbox = app.config["GRADER_SANDBOX"]
    threading.Thread(target=grader_warm_up, args=(sandbox,), name="sandbox-warm-up", daemon=True).start()


def recover_unfinished(app: Flask) -> list[str]:
    """Re-enqueue what a stopped server left queued or running; returns the ids."""
    from sqlalchemy import inspect, select, update

    from app.extensions import db
    from app.grading.admission import forget_held
    from app.models import Submission

    queue = get_queue(app)
    recover = getattr(queue, "recover", None)
    if recover is not None:
        return recover()  # a distributed queue: its workers reclaim and re-enqueue themselves
    with app.app_context():
        if not inspect(db.engine).has_table(Submission.__tablename__):
            return []  # a fresh database before `flask db upgrade`
        if getattr(queue, "grades_in_this_process", False):
            # In-process grading: a job marked running when the server starts has no live worker.
            db.session.execute(
                update(Submission).where(Submission.status == "running")
                .values(status="queued", claimed_by=None)
            )
            db.session.commit()
            # ... and one left "held" was being admitted by a request that died with it.
            forget_held(0)
        ids = list(
            db.session.scalars(
                select(Submission.id)
                .where(Submission.status == "queued")
                .order_by(Submission.created_at)
            )
        )
    for submission_id in ids:
        queue.enqueue(submission_id)
    if ids:
        log.info("re-enqueued %d unfinished submission(s)", len(ids))
    return ids
