"""Rate limits (Flask-Limiter): submissions and runs per learner, login attempts per address and email."""

from __future__ import annotations

from flask import Flask, render_template, request
from flask_babel import gettext as _
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from werkzeug.wrappers import Response

from app.accounts.identity import learner_key
from app.accounts.models import normalize_email
from app.errors import json_error


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


def too_many(exc: RateLimitExceeded) -> tuple[Response | str, int]:
    """Say which limit was hit and what to do, in the form the caller reads (JSON or a page)."""
    if request.endpoint == "api.submit":
        message = _("You sent many submissions in a short time (the limit is %(limit)s). "
                    "Wait a moment, then submit again.", limit=str(exc.limit.limit))
        return json_error(429, "too_many_submissions", message)
    if request.endpoint == "api.run":
        message = _("You ran your code many times in a short time (the limit is %(limit)s). "
                    "Wait a moment, then run it again.", limit=str(exc.limit.limit))
        return json_error(429, "too_many_runs", message)
    if request.endpoint == "accounts.login":
        from app.accounts.forms import LoginForm

        message = _("Too many login attempts. Wait a minute, then try again.")
        return render_template("accounts/login.html", form=LoginForm(), error=message), 429
    message = _("Too many requests in a short time. Please wait a minute, then try again.")
    if request.path.startswith("/api/"):
        return json_error(429, "too_many_requests", message)
    return render_template("errors/page.html", status=429, message=message), 429


def init_app(app: Flask) -> None:
    """One limiter per app (tests build many apps); call after the blueprints are registered."""
    limiter = Limiter(
        get_remote_address,
        app=app,
        storage_uri=app.config["RATELIMIT_STORAGE_URI"],
        headers_enabled=True,  # Retry-After tells the editor and scripts how long to wait
    )
    _limit(app, limiter, "api.submit", app.config["SUBMISSION_RATE_LIMIT"], key_func=submission_key)
    # Dropping the session cookie makes a new anonymous learner; the address limit still holds.
    _limit(app, limiter, "api.submit", app.config["SUBMISSION_ADDRESS_RATE_LIMIT"],
           key_func=lambda: "submit-address:" + get_remote_address())
    # Running code costs a sandbox like grading does: the same limits, counted apart.
    _limit(app, limiter, "api.run", app.config["SUBMISSION_RATE_LIMIT"],
           key_func=lambda: "run:" + submission_key())
    _limit(app, limiter, "api.run", app.config["SUBMISSION_ADDRESS_RATE_LIMIT"],
           key_func=lambda: "run-address:" + get_remote_address())
    _limit(app, limiter, "accounts.login", app.config["LOGIN_RATE_LIMIT"], key_func=login_key,
           methods=["POST"])
    app.register_error_handler(RateLimitExceeded, too_many)
    app.extensions["laip_limiter"] = limiter
