"""Who is learning: the account's learner key when logged in, else this browser's session key."""

from __future__ import annotations

import hashlib
import hmac
import re
import uuid

from flask import current_app, session
from flask_login import current_user

SESSION_KEY = "learner"
_ANONYMOUS_KEY = re.compile(r"^[0-9a-f]{32}$")


def anonymous_key(create: bool = True) -> str | None:
    """This browser's anonymous key, kept in the signed session cookie; made on first use."""
    key = session.get(SESSION_KEY)
    if isinstance(key, str) and _ANONYMOUS_KEY.match(key):
        return key
    if not create:
        return None
    key = uuid.uuid4().hex
    session[SESSION_KEY] = key
    session.permanent = True  # anonymous work should outlive closing the browser
    return key


def learner_key() -> str:
    """The key every submission, draft and quiz attempt of the current learner is stored under."""
    if current_user.is_authenticated:
        key: str = current_user.learner_key
        return key
    return anonymous_key() or ""


def is_instructor() -> bool:
    return bool(current_user.is_authenticated and current_user.is_instructor)


def storage_scope() -> str:
    """A per-learner name for the browser's local drafts that does not reveal the learner key."""
    secret = str(current_app.config["SECRET_KEY"]).encode("utf-8")
    digest = hmac.new(secret, learner_key().encode("utf-8"), hashlib.sha256).hexdigest()
    return digest[:16]
