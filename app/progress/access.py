"""Who may read a submission: its own learner, or an instructor; nobody else, by any id."""

from __future__ import annotations

from flask import abort

from app.accounts.identity import is_instructor, learner_key
from app.extensions import db
from app.models import Submission


def find_readable(submission_id: str) -> Submission | None:
    """The submission if this visitor may read it (the one owner check: pages and the API).

    None for another learner's id exactly as for an unknown one: ids leak nothing.
    """
    found = db.session.get(Submission, submission_id) if len(submission_id) <= 36 else None
    if found is None or not (found.learner == learner_key() or is_instructor()):
        return None
    return found


def readable_submission(submission_id: str) -> Submission:
    """The submission, or 404 (not 403): another learner's id must look like an unknown one."""
    found = find_readable(submission_id)
    if found is None:
        abort(404)
    return found
