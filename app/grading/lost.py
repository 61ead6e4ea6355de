"""Jobs whose worker was lost (a killed pool process, a silent host): back to the queue, or ended (app.grading.jobs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.grading import jobs
from app.grading.kinds import KINDS, stopped_result

if TYPE_CHECKING:
    from flask import Flask

__all__ = ["release", "reclaim_stale", "stopped_result"]


def release(app: Flask, token: str) -> list[str]:
    """The process that claimed with `token` died (Celery's WorkerLostError): give its job back now, any kind."""
    return jobs.release(app, list(KINDS.values()), token)


def reclaim_stale(app: Flask) -> list[str]:
    """Jobs of every kind whose heartbeat stopped (their host died), by the database's clock.

    Gradings and checks go back to the queue (their ids are returned); Runs end.
    """
    return [job_id for kind in KINDS.values() for job_id in jobs.reclaim_stale(app, kind).back]

