"""Rate limits (Flask-Limiter): submissions per learner, login attempts per address and email."""

from __future__ import annotations

from flask import Flask, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from app.accounts.identity import learner_key
from app.accounts.models import normalize_email


def submission_key() -> str:
    # Per learner, not per address: a classroom behind one NAT shares an address.
    return "learner:" + learner_key()


def login_key() -> str:
    # Address and email together: one attacker cannot lock a victim out from elsewhere,
    # and one address cannot try many passwords on one account.
    email = normalize_email(request.form.get("email", ""))[:254]
    return f"login:{get_remote_address()}:{email}"


def _limit(app: Flask, limiter: Limiter, endpoint: str, rule: str, **options: object) -> None:
    """Wrap a registered view in a limit; the views stay free of rate-limit imports."""
    view = app.view_functions[endpoint]
    app.view_functions[endpoint] = limiter.limit(rule, **options)(view)  # type: ignore[arg-type]


def init_app(app: Flask) -> None:
    """One limiter per app (tests build many apps); call after the blueprints are registered."""
    limiter = Limiter(
        get_remote_address,
        app=app,
        storage_uri=app.config["RATELIMIT_STORAGE_URI"],
        headers_enabled=True,  # Retry-After tells the editor and scripts how long to wait
    )
    _limit(app, limiter, "api.submit", app.config["SUBMISSION_RATE_LIMIT"], key_func=submission_key)
    _limit(app, limiter, "accounts.login", app.config["LOGIN_RATE_LIMIT"], key_func=login_key,
           methods=["POST"])
    app.extensions["laip_limiter"] = limiter
