"""The grading queue this app was built with, found without importing the queues.

The queues (app.grading.queue, app.grading.celery_queue) call down into the worker; a worker
that must reach its queue back (a grading ended: wake a claim) looks it up here, so the
imports only ever point down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask

    from app.grading.queue import GradingQueue


def get_queue(app: Flask) -> GradingQueue:
    """The queue app.grading.queue.init_app built and kept in app.extensions."""
    queue: GradingQueue = app.extensions["grading_queue"]
    return queue
