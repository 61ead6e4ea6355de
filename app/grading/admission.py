"""Admission control: a cap on queued+running jobs (gradings, Runs) per learner, and per address for anonymous ones."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from typing import Any

from flask import current_app
from flask_babel import gettext as _
from flask_limiter.util import get_remote_address
from flask_login import current_user
from sqlalchemy import delete, func, select, update
from werkzeug.wrappers import Response

from app.errors import json_error, unavailable
from app.extensions import db
from app.grading.clock import db_now
from app.models import Run, Submission

# "held" counts: a submission being admitted is pending for the caps before any worker sees it.
PENDING = ("held", "queued", "running")


def client_network() -> str:
    """The client's address; for IPv6 its /64, which one host (or household) usually holds whole."""
    address = get_remote_address()
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6 and ip.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def address_key() -> str:
    """A keyed hash of the client address: enough to count, without storing the address."""
    secret = str(current_app.config["SECRET_KEY"]).encode("utf-8")
    return hmac.new(secret, client_network().encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def _pending(model: Any, *condition: object) -> int:
    query = select(func.count()).select_from(model).where(model.status.in_(PENDING), *condition)
    return int(db.session.scalar(query) or 0)


def _refuse(job: Any, error: str, message: str) -> tuple[Response, int]:
    db.session.delete(job)
    db.session.commit()
    return json_error(429, error, message)


def _store(job: Any) -> bool:
    """Store the job with its anonymous address (if any); True when its learner is anonymous."""
    anonymous = not current_user.is_authenticated
    # Every job names its address: an address's anonymous work shares one running cap with
    # the accounts working from there (app.grading.running_cap).
    job.from_address = address_key()
    job.anon_address = job.from_address if anonymous else None
    db.session.add(job)
    db.session.commit()
    return anonymous


def admit(submission: Submission) -> tuple[Response, int] | None:
    """Store the submission if its learner (and anonymous address) are under their caps.

    Stored first and counted after, so two requests racing each other cannot both slip under
    the cap; a refused submission is deleted again and nothing of it remains. Returns the 429.
    It is stored "held" and becomes "queued" only once admitted: no worker can claim (and
    grade) a submission in the moment between storing and deleting a refused one.
    """
    config = current_app.config
    # Held rows are stamped by the database's clock, which forget_held compares with.
    submission.status, submission.heartbeat_at = "held", db_now()
    anonymous = _store(submission)
    cap = int(config["GRADING_MAX_PENDING_PER_LEARNER"])
    if _pending(Submission, Submission.learner == submission.learner) > cap:
        message = _("You already have %(count)d submissions waiting to be graded (the most at once). "
                    "Wait for one of their results, then submit again.", count=cap)
        return _refuse(submission, "too_many_pending", message)
    address_cap = int(config["GRADING_MAX_PENDING_PER_ANON_ADDRESS"])
    if anonymous and _pending(Submission, Submission.anon_address == submission.anon_address) > address_cap:
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


def admit_run(run: Run) -> tuple[Response, int] | None:
    """Store the Run if its learner, its anonymous address and the Run lane are under their caps.

    Counted apart from gradings: a learner waiting for grading can still Run, and Runs never
    use up a grading cap. Same store-then-count rule as admit().
    """
    config = current_app.config
    anonymous = _store(run)
    cap = int(config["RUN_MAX_PENDING_PER_LEARNER"])
    if _pending(Run, Run.learner == run.learner) > cap:
        message = _("Your code is already running (%(count)d Run at a time). Stop it or wait for "
                    "its output, then run again.", count=cap)
        return _refuse(run, "too_many_runs_pending", message)
    address_cap = int(config["RUN_MAX_PENDING_PER_ANON_ADDRESS"])
    if anonymous and _pending(Run, Run.anon_address == run.anon_address) > address_cap:
        message = _("Many learners without an account are running code from your network right "
                    "now. Log in to run your code, or wait a minute and run it again.")
        return _refuse(run, "too_many_runs_pending_address", message)
    if _pending(Run) > int(config["RUN_MAX_PENDING"]):
        message = _("Many learners are running code right now. Wait a minute, then run it again; "
                    "submitting for grading still works.")
        return _refuse(run, "runs_busy", message)
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
