"""Where a queued submission stands in the order workers take jobs, and the API view that shows it."""

from __future__ import annotations

from typing import Any

from flask import current_app

from app.grading.routing import queue_kind
from app.grading.worker import fair_order
from app.models import Submission
from app.result_documents import readable


def queue_position(submission: Submission) -> int | None:
    """1-based place in the fair order (app.grading.fairness); None unless queued."""
    if submission.status != "queued":
        return None
    exercise = current_app.extensions["exercise_catalog"].get(submission.exercise_id)
    order = fair_order(current_app, queue_kind(current_app, exercise))
    return order.index(submission.id) + 1 if submission.id in order else None


def submission_api(submission: Submission) -> dict[str, Any]:
    """The public view of a submission as the JSON API sends it, with its place in the queue.

    Its results document as readers need it (app.result_documents: fields added to results
    v1 after it was stored are filled in).
    """
    view = submission.to_api(queue_position=queue_position(submission))
    view["result"] = readable(view["result"])
    return view
