"""The job queue interface and its in-process implementation (thread pools in the web process)."""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol

from sqlalchemy import inspect

from app.extensions import db
from app.grading import checks, jobs, runs
from app.grading.admission import forget_held
from app.grading.celery_queue import CeleryQueue
from app.grading.handle import get_queue
from app.grading.kinds import KINDS
from app.grading.runs import run_next
from app.grading.worker import background_next, claimable_background, claimable_jobs, grade_next
from app.models import Run, Submission
from grader.api import sandbox_isolated as grader_sandbox_isolated
from grader.api import warm_up as grader_warm_up

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)


class GradingQueue(Protocol):
    """Where the app hands a stored job over to be worked on: the in-process pools or Celery workers.

    A job is a row of one of the kinds of app.grading.kinds ("submission", "run", "check",
    "regrade"); each enqueue is a token for one job of that kind's lane (grading, runs,
    background), which a free worker of the lane spends on its fairest claimable job
    (app.grading.jobs), not necessarily this one.
    """

    def enqueue(self, kind: str, job_id: str) -> None:
        """A token for one job of this kind, in its lane (each lane has workers of its own)."""
        ...

    def wake(self, queue: str | None, *, background: bool = False) -> None:
        """A job of this grading queue ("cpu", "gpu"; None: any) ended, in the grading lane or
        the background lane: a token for each claimable job of that lane that lacks one."""
        ...

    def recover(self) -> list[str]:
        """At a web start: what a stopped server left behind gets its tokens; the ids re-enqueued."""
        ...

    def sandbox_isolated(self) -> bool:
        """Whether learners' code runs isolated where this queue's jobs run (the footer says which)."""
        ...

    def shutdown(self, wait: bool = True) -> None:
        """Stop taking tokens; with `wait`, let the jobs under way end."""
        ...


class InProcessQueue:
    """Pools of worker threads inside the web process, one per lane: GRADER_WORKERS for learners'
    gradings, RUN_WORKERS for Runs, BACKGROUND_WORKERS for folder checks and regrades.

    Each enqueue is a token for one job of its lane: a free thread of that lane takes the
    fairest queued job. No lane waits behind another's jobs nor takes its threads: a check of
    every folder at start, or a regrade of a thousand submissions, leaves every grading thread
    to learners. Web threads only store and enqueue.
    """

    def __init__(self, app: Flask, workers: int = 1, run_workers: int = 1, background_workers: int = 1):
        self.app = app
        self.workers = max(1, workers)
        self.run_workers = max(1, run_workers)
        self.background_workers = max(1, background_workers)
        self._pid = os.getpid()
        self._stopped = threading.Event()
        # Threads start lazily on the first job, so CLI commands never spawn any.
        self._lanes = self._new_pools()

    def _new_pools(self) -> dict[str, ThreadPoolExecutor]:
        return {"grading": ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="grader"),
                "runs": ThreadPoolExecutor(max_workers=self.run_workers, thread_name_prefix="runner"),
                "background": ThreadPoolExecutor(max_workers=self.background_workers,
                                                 thread_name_prefix="background")}

    def _forked(self) -> None:
        if self._pid != os.getpid():
            # Forked (gunicorn --preload): the parent's threads do not exist in this process,
            # and a pool that counts them as busy would never run a job.
            self._pid = os.getpid()
            self._lanes = self._new_pools()

    def _token(self, lane: str) -> None:
        """One token for this lane: a free thread of it takes the lane's next claimable job."""
        self._forked()
        work = {"grading": grade_next, "runs": run_next, "background": background_next}[lane]
        try:
            future = self._lanes[lane].submit(work, self.app)
        except RuntimeError:  # shutting down: what is queued is recovered at the next start
            return
        future.add_done_callback(_log_crash)

    def enqueue(self, kind: str, job_id: str) -> None:
        self._token(KINDS[kind].lane)

    def wake(self, queue: str | None, *, background: bool = False) -> None:
        """A job ended (in a pool thread, in its app context): one more token if one of its lane may run now.

        A token that came while every waiting job's key was at its running cap (or while the
        lane's checks or regrades were at theirs) found nothing; the job that ending frees must
        not wait for the next submission while a thread idles. A surplus token costs one look
        at the queue.
        """
        if background:
            if claimable_background(self.app, None) > 0:
                self._token("background")
        elif claimable_jobs(self.app, None) > 0:
            self._token("grading")

    def recover(self) -> list[str]:
        """At start: jobs left running have no thread here any more (back to the queue, or ended,
        by kind); a submission left "held" was being admitted by a request that died with it.
        Every queued job gets its token again."""
        recovered = []
        with self.app.app_context():
            if inspect(db.engine).has_table(Submission.__tablename__):
                forget_held(0)
        for kind in KINDS.values():
            ids = jobs.restart(self.app, kind)
            recovered += ids
            if kind.lane == "background":
                # A token takes the lane's next job whichever it is, and each job that ends
                # wakes the next: a thousand queued regrades need a token per background
                # thread, not a thousand looks at the queue.
                for _ in range(min(len(ids), self.background_workers)):
                    self._token("background")
            else:
                for job_id in ids:
                    self.enqueue(kind.name, job_id)
        if recovered:
            log.info("re-enqueued %d unfinished job(s)", len(recovered))
        if self.app.config["CHECK_SEEN_FOLDERS"]:
            self._watch_folders()
        return recovered

    def _watch_folders(self) -> None:
        """Every GRADING_SWEEP_S, queue a check of each new or changed folder (the Celery sweep does it there)."""
        every = float(self.app.config["GRADING_SWEEP_S"])

        def loop() -> None:
            while not self._stopped.is_set():
                try:
                    checks.check_seen(self.app)
                except Exception:  # the database away for a moment, or no tables yet: next round
                    log.warning("looking for new or changed folders failed", exc_info=True)
                self._stopped.wait(every)

        threading.Thread(target=loop, name="folder-watch", daemon=True).start()

    def sandbox_isolated(self) -> bool:
        """Learners' code runs in this process's sandbox (docker's answer is cached by the grader)."""
        return grader_sandbox_isolated(self.app.config["GRADER_SANDBOX"])

    def shutdown(self, wait: bool = True) -> None:
        self._stopped.set()
        self._stop_runs()  # a shutdown never waits for an endless Run: its output has no reader
        for pool in self._lanes.values():
            pool.shutdown(wait=wait, cancel_futures=not wait)

    def _stop_runs(self) -> None:
        """Stop every Run still going, so a shutdown never waits for an endless one."""
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
        factory = CeleryQueue
    queue = factory(app) if factory else InProcessQueue(app, app.config["GRADER_WORKERS"],
                                                        app.config["RUN_WORKERS"],
                                                        app.config["BACKGROUND_WORKERS"])
    app.extensions["grading_queue"] = queue

    @app.context_processor
    def _sandbox_state() -> dict[str, object]:
        # Lazy: only pages that show it pay for asking where learners' code runs (the workers,
        # with Celery: the web container itself has no sandbox to ask).
        return {"sandbox_isolated": queue.sandbox_isolated}


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
    return get_queue(app).recover()
