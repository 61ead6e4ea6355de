"""Admission control: a cap on queued+running jobs per learner, and per address for anonymous ones."""

from __future__ import annotations

import hashlib
import hmac

from flask import current_app
from flask_babel import gettext as _
from flask_limiter.util import get_remote_address
from flask_login import current_user
from sqlalchemy import delete, func, select, update
from werkzeug.wrappers import Response

from app.errors import json_error, unavailable
from app.extensions import db
from app.grading.clock import db_now
from app.models import Submission

# "held" counts: a submission being admitted is pending for the caps before any worker sees it.
PENDING = ("held", "queued", "running")


def address_key() -> str:
    """A keyed hash of the client address: enough to count, without storing the address."""
    secret = str(current_app.config["SECRET_KEY"]).encode("utf-8")
    return hmac.new(secret, get_remote_address().encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def _pending(*condition: object) -> int:
    query = select(func.count()).select_from(Submission).where(Submission.status.in_(PENDING), *condition)
    return int(db.session.scalar(query) or 0)


def _refuse(submission: Submission, error: str, message: str) -> tuple[Response, int]:
    db.session.delete(submission)
    db.session.commit()
    return json_error(429, error, message)


def admit(submission: Submission) -> tuple[Response, int] | None:
    """Store the submission if its learner (and anonymous address) are under their caps.

    Stored first and counted after, so two requests racing each other cannot both slip under
    the cap; a refused submission is deleted again and nothing of it remains. Returns the 429.
    It is stored "held" and becomes "queued" only once admitted: no worker can claim (and
    grade) a submission in the moment between storing and deleting a refused one.
    """
    config = current_app.config
    anonymous = not current_user.is_authenticated
    submission.anon_address = address_key() if anonymous else None
    # Held rows are stamped by the database's clock, which forget_held compares with.
    submission.status, submission.heartbeat_at = "held", db_now()
    db.session.add(submission)
    db.session.commit()
    cap = int(config["GRADING_MAX_PENDING_PER_LEARNER"])
    if _pending(Submission.learner == submission.learner) > cap:
        message = _("You already have %(count)d submissions waiting to be graded (the most at once). "
                    "Wait for one of their results, then submit again.", count=cap)
        return _refuse(submission, "too_many_pending", message)
    address_cap = int(config["GRADING_MAX_PENDING_PER_ANON_ADDRESS"])
    if anonymous and _pending(Submission.anon_address == submission.anon_address) > address_cap:
        message = _("Many learners without an account are waiting for grading from your network "
                    "right now. Log in to submit, or wait a minute and submit again.")
        return _refuse(submission, "too_many_pending_address", message)
    admitted = db.session.execute(update(Submission).where(
        Submission.id == submission.id, Submission.status == "held").values(status="queued", heartbeat_at=None))
    db.session.commit()
    if admitted.rowcount != 1:  # type: ignore[attr-defined]  # forgotten meanwhile (a stall of minutes)
        return unavailable("queue_unavailable", _(  # type: ignore[return-value]
            "Grading is unavailable for a moment, so this submission was not kept. "
            "Your code is still in the editor: wait a minute, then submit again."))
    return None


def forget_held(older_than_s: float) -> int:
    """Delete submissions left "held" by a web process that died while admitting them.

    The learner never got an answer saying they were accepted; left alone they would count
    against the learner's cap for ever.
    """
    gone = db.session.execute(delete(Submission).where(
        Submission.status == "held", Submission.heartbeat_at < db_now(older_than_s)))
    db.session.commit()
    return int(gone.rowcount or 0)  # type: ignore[attr-defined]
