"""The grading worker's Celery app: `celery -A app.grading.celery_app worker -Q cpu` (GPU: -Q gpu; Runs: -Q runs)."""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from celery.signals import worker_process_init, worker_ready

from app import config
from app.grading.celery_queue import RUN_TASK, TASK, make_celery

if TYPE_CHECKING:
    from flask import Flask

_settings = config.from_environment(str(config.REPO_ROOT / "instance"))
if not _settings.get("CELERY_BROKER_URL"):
    raise SystemExit("Set CELERY_BROKER_URL (e.g. redis://localhost:6379/0) to run a grading worker.")
celery = make_celery(_settings)
_flask: dict[int, Flask] = {}


def flask_app() -> Flask:
    """One Flask app per process, built after the fork (database connections are not shared)."""
    pid = os.getpid()
    if pid not in _flask:
        from app import create_app

        overrides: dict[str, Any] = {"GRADER_RECOVER_ON_START": False}
        # Load tests only: a stand-in grade function ("module:name") instead of the sandbox.
        injected = os.environ.get("GRADING_TEST_GRADE_FUNCTION")
        if injected:
            module, _, name = injected.partition(":")
            overrides["GRADE_FUNCTION"] = getattr(importlib.import_module(module), name)
        for inherited in _flask.values():
            # Forked from a process that had connected: leave the parent's connections alone
            # (closing a shared PostgreSQL socket here would break the parent's session).
            from app.extensions import db

            with inherited.app_context():
                db.engine.dispose(close=False)
        _flask.clear()
        _flask[pid] = create_app(overrides)
    return _flask[pid]


@celery.task(name=TASK, acks_late=True, reject_on_worker_lost=True)
def grade(submission_id: str = "", kind: str = "cpu") -> str | None:
    """A token for one grading: grade the fairest queued job of this queue, whichever it is."""
    from app.grading.worker import grade_next

    return grade_next(flask_app(), kind)


@celery.task(name=RUN_TASK, acks_late=True, reject_on_worker_lost=True)
def run(run_id: str = "") -> str | None:
    """A token for one Run (the Run button): run the fairest queued one (`-Q runs` workers)."""
    from app.grading.runs import run_next

    return run_next(flask_app())


@worker_ready.connect
def _start_sweeping(**_: Any) -> None:
    from app.grading import maintenance
    from app.grading.queue import get_queue

    app = flask_app()
    maintenance.start(app, get_queue(app))  # type: ignore[arg-type]


@worker_process_init.connect
def _warm_sandboxes(**_: Any) -> None:
    # Each pool process keeps its own warm sandboxes (grader.sandboxes.pool); starting them
    # now means even the first job this process takes is graded warm.
    if os.environ.get("GRADING_TEST_GRADE_FUNCTION"):
        return  # load tests grade with a stand-in: no sandbox to warm
    from grader.api import warm_up

    warm_up(flask_app().config["GRADER_SANDBOX"])
