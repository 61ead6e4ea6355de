"""The grading worker's Celery app, tasks and signals; `celery -A app.celery_worker worker -Q cpu` starts it."""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from billiard.exceptions import WorkerLostError
from celery.signals import worker_process_init, worker_ready, worker_shutdown
from celery.worker.request import Request

from app import config
from app.grading.celery_queue import BACKGROUND_TASK, RUN_TASK, TASK, make_celery

if TYPE_CHECKING:
    from flask import Flask

_settings = config.from_environment(str(config.REPO_ROOT / "instance"))
if not _settings.get("CELERY_BROKER_URL"):
    raise SystemExit("Set CELERY_BROKER_URL (e.g. redis://localhost:6379/0) to run a grading worker.")
celery = make_celery(_settings)
_flask: dict[int, Flask] = {}
_factory: list[Callable[[dict[str, Any]], Flask]] = []  # create_app, handed down by app.celery_worker
# Imported in the worker's main process before its pool forks: every sandbox container its
# pool processes start carries this worker's identity, so others can tell when it is gone.
importlib.import_module("grader.api").claim_worker_identity()


def build_flask_with(factory: Callable[[dict[str, Any]], Flask]) -> None:
    """Use this app factory (app.create_app: it lives above this package, which it imports)."""
    _factory[:] = [factory]


def flask_app() -> Flask:
    """One Flask app per process, built after the fork (database connections are not shared)."""
    pid = os.getpid()
    if pid not in _flask:
        if not _factory:
            raise RuntimeError("start the worker with `celery -A app.celery_worker worker`")
        overrides: dict[str, Any] = {"GRADER_RECOVER_ON_START": False}
        # Load tests only: a stand-in grade or check function ("module:name") instead of the sandbox.
        for variable, setting in (("GRADING_TEST_GRADE_FUNCTION", "GRADE_FUNCTION"),
                                  ("GRADING_TEST_CHECK_FUNCTION", "VALIDATE_FUNCTION")):
            injected = os.environ.get(variable)
            if injected:
                module, _, name = injected.partition(":")
                overrides[setting] = getattr(importlib.import_module(module), name)
        for inherited in _flask.values():
            # Forked from a process that had connected: leave the parent's connections alone
            # (closing a shared PostgreSQL socket here would break the parent's session).
            from app.extensions import db

            with inherited.app_context():
                db.engine.dispose(close=False)
        _flask.clear()
        _flask[pid] = _factory[0](overrides)
    return _flask[pid]


class GradingRequest(Request):  # type: ignore[misc]
    """Runs in the worker's main process, which outlives its pool processes."""

    def on_failure(self, exc_info: Any, send_failed_event: bool = True, return_ok: bool = False) -> None:
        exc = getattr(exc_info.exception, "exc", exc_info.exception)
        if isinstance(exc, WorkerLostError):
            # The pool process died mid-grading (kill -9, the OOM killer). Its job was claimed
            # with this message's id: put it back in the queue (or end it after N attempts)
            # before Celery re-queues the message (acks_late + reject_on_worker_lost), so the
            # redelivered token finds it. If the database is away, the heartbeat limit does it.
            from app.grading.lost import release  # the job of any kind this delivery claimed

            try:
                release(flask_app(), self.id)
            except Exception:
                logging.getLogger(__name__).warning("could not give back the job of %s", self.id,
                                                    exc_info=True)
        super().on_failure(exc_info, send_failed_event=send_failed_event, return_ok=return_ok)


@celery.task(name=TASK, bind=True, Request=GradingRequest)
def grade(self: Any, submission_id: str = "", kind: str = "cpu") -> str | None:
    """A token for one grading: grade the fairest queued job of this queue, whichever it is.

    The claim carries this message's id, which is what ties the job to Celery's delivery.
    """
    from app.grading.worker import grade_next

    # The claim records this delivery as spent: the sweep never counts it as on its way again.
    return grade_next(flask_app(), kind, token=self.request.id)


@celery.task(name=BACKGROUND_TASK, bind=True, Request=GradingRequest)
def background(self: Any, job_id: str = "", kind: str = "cpu") -> str | None:
    """A token for the background lane (`-Q background` workers): the next folder check, else regrade, of this queue."""
    from app.grading.worker import background_next

    return background_next(flask_app(), kind, token=self.request.id)


@celery.task(name=RUN_TASK, bind=True, Request=GradingRequest)
def run(self: Any, run_id: str = "") -> str | None:
    """A token for one Run (the Run button): run the fairest queued one (`-Q runs` workers)."""
    from app.grading.runs import run_next

    return run_next(flask_app(), token=self.request.id)


@worker_ready.connect
def _start_sweeping(**_: Any) -> None:
    from app.grading import maintenance
    from app.grading.handle import get_queue

    app = flask_app()
    maintenance.start(app, get_queue(app))  # type: ignore[arg-type]  # also removes dead workers' sandboxes


@worker_shutdown.connect
def _remove_own_sandboxes(**_: Any) -> None:
    # A warm shutdown (docker compose down, SIGTERM): the pool processes are gone by now and
    # never ran atexit; remove every container this worker's pool made, at once.
    from grader.api import remove_orphan_sandboxes

    try:
        remove_orphan_sandboxes(flask_app().config["GRADER_SANDBOX"], this_worker=True)
    except Exception:
        logging.getLogger(__name__).warning("could not remove this worker's sandboxes", exc_info=True)


@worker_process_init.connect
def _warm_sandboxes(**_: Any) -> None:
    # Each pool process keeps its own warm sandboxes (grader.sandboxes.pool); starting them
    # now means even the first job this process takes is graded warm.
    if os.environ.get("GRADING_TEST_GRADE_FUNCTION"):
        return  # load tests grade with a stand-in: no sandbox to warm
    from grader.api import warm_up

    # A prefork child grades one job at a time: one warm sandbox is all it can use (the
    # host-sized default is for a process that grades on several threads).
    os.environ.setdefault("GRADER_POOL_SIZE", "1")
    warm_up(flask_app().config["GRADER_SANDBOX"])
