"""Who may read a submission: its own learner, or an instructor; nobody else, by any id."""

from __future__ import annotations

from flask import abort

from app.accounts.identity import is_instructor, learner_key
from app.extensions import db
from app.models import Submission


def readable_submission(submission_id: str) -> Submission:
    """The submission, or 404 (not 403): another learner's id must look like an unknown one."""
    found = db.session.get(Submission, submission_id) if len(submission_id) <= 36 else None
    if found is None or not (found.learner == learner_key() or is_instructor()):
        abort(404)
    return found
