"""Rate limits (Flask-Limiter) on everything that writes, hashes or runs code: see docs/security.md."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import Flask, render_template, request
from flask_babel import gettext as _
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from flask_login import current_user
from werkzeug.wrappers import Response

from app import ratelimit_giveback
from app.accounts.emails import normalize_email
from app.accounts.forms import LoginForm
from app.accounts.identity import learner_key
from app.errors import json_error


def submission_key() -> str:
    # Per learner, not per address: a classroom behind one NAT shares an address.
    return "learner:" + learner_key()


def address_key() -> str:
    # get_remote_address is the client's address once TRUSTED_PROXIES lets ProxyFix set it.
    return "address:" + get_remote_address()


def login_key() -> str:
    # Address and email together: one attacker cannot lock a victim out from elsewhere,
    # and one address cannot try many passwords on one account. The account forms refuse
    # JSON bodies before this runs (app.accounts.routes), so the email is always read here.
    email = normalize_email(request.form.get("email", ""))[:254]
    return f"login:{get_remote_address()}:{email}"


def logged_in() -> bool:
    # Address limits are for anonymous traffic: a logged-in learner has limits of their own
    # (keyed by the account), and a class behind one NAT address must not share one budget.
    return bool(current_user.is_authenticated)


def account_key() -> str:
    if current_user.is_authenticated:
        return f"account:{current_user.id}"
    return address_key()


def _succeeded(response: Response) -> bool:
    # A successful login redirects (302): it is given back, so only failures count against
    # address and account, and the owner who knows the password never uses up the limit.
    return response.status_code == 302


def _wrap(app: Flask, endpoint: str, decorator: object) -> None:
    """Wrap a registered view in a limit; the views stay free of rate-limit imports."""
    app.view_functions[endpoint] = decorator(app.view_functions[endpoint])  # type: ignore[operator]
    app.extensions.setdefault("laip_limited", set()).add(endpoint)


def _account_first(view: Callable[..., Any]) -> Callable[..., Any]:
    """Load the logged-in account before the limits' key functions need it.

    With the database away the load raises here, outside Flask-Limiter, and app.errors answers
    503 before anything was counted. Raised inside a key function, Flask-Limiter would take it
    for its own storage failing: skip every limit of the request and count in memory for a while.
    """
    @functools.wraps(view)
    def limited(*args: Any, **kwargs: Any) -> Any:
        _ = current_user.is_authenticated  # the account's row, read now
        return view(*args, **kwargs)

    return limited


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
        message = _("Too many login attempts. Wait a minute, then try again.")
        return render_template("accounts/login.html", form=LoginForm(), error=message), 429
    if request.endpoint == "accounts.register":
        message = _("Many accounts were created from your network in a short time. "
                    "Wait a few minutes, then sign up again.")
    elif request.endpoint in ("progress.put_draft", "progress.delete_draft"):
        message = _("Your draft is saved very often; this save was skipped. "
                    "It is kept in this browser and sent again at your next pause.")
        return json_error(429, "too_many_drafts", message)
    elif request.endpoint == "progress.reveal_hint":
        message = _("You asked for many hints in a short time. Read the ones you have, "
                    "then ask for the next in a minute.")
        return json_error(429, "too_many_hints", message)
    elif request.endpoint in ("quizzes.answer", "quizzes.api_answers"):
        message = _("You sent answers many times in a short time. "
                    "Wait a minute, then check your answers again.")
        if request.endpoint == "quizzes.api_answers":
            return json_error(429, "too_many_answers", message)
    elif request.endpoint in ("progress.history", "progress.submission", "progress.submission_code"):
        message = _("You opened your submissions many times in a short time. "
                    "Wait a minute, then open them again.")
    else:
        message = _("Too many requests in a short time. Please wait a minute, then try again.")
    if request.path.startswith("/api/"):
        return json_error(429, "too_many_requests", message)
    return render_template("errors/page.html", status=429, message=message), 429


def _refused(response: Response) -> bool:
    # A submission or Run refused by its queue cap (app.grading.admission), or by another of its
    # limits, was never accepted: it is given back and does not use up the learner's limit.
    return response.status_code == 429


def init_app(app: Flask) -> None:
    """One limiter per app (tests build many apps); call after the blueprints are registered."""
    config = app.config
    limiter = Limiter(
        get_remote_address,
        app=app,
        storage_uri=config["RATELIMIT_STORAGE_URI"],
        headers_enabled=True,  # Retry-After tells the editor and scripts how long to wait
        # Redis away: count in this process's memory until it answers again, rather than
        # failing every limited request (login, drafts, submissions) with a 500.
        in_memory_fallback_enabled=True,
        swallow_errors=True,  # Redis lost mid-request: log it, never turn it into a 500
        storage_options={"socket_connect_timeout": 1, "socket_timeout": 1}
        if config["RATELIMIT_STORAGE_URI"].startswith("redis") else {},
    )
    # Every limit below counts on arrival and gives back what the server failed (>= 500).
    ratelimit_giveback.install(app, limiter, get_remote_address)
    _wrap(app, "api.submit", limiter.limit(config["SUBMISSION_RATE_LIMIT"],
                                           key_func=submission_key, give_back_when=_refused))
    # Dropping the session cookie makes a new anonymous learner; the address limit still holds.
    _wrap(app, "api.submit", limiter.limit(
        config["SUBMISSION_ADDRESS_RATE_LIMIT"], exempt_when=logged_in,
        key_func=lambda: "submit-address:" + get_remote_address(), give_back_when=_refused))
    # Running code costs a sandbox like grading does: the same limits, counted apart.
    # A Run refused by its queue cap (429) was never accepted: it does not count either.
    _wrap(app, "api.run", limiter.limit(config["SUBMISSION_RATE_LIMIT"],
                                        key_func=lambda: "run:" + submission_key(),
                                        give_back_when=_refused))
    _wrap(app, "api.run", limiter.limit(config["RUN_ADDRESS_RATE_LIMIT"],
                                        key_func=lambda: "run-address:" + get_remote_address(),
                                        give_back_when=_refused))
    _wrap(app, "api.run", limiter.limit(
        config["SUBMISSION_ADDRESS_RATE_LIMIT"], exempt_when=logged_in,
        key_func=lambda: "run-anon-address:" + get_remote_address(), give_back_when=_refused))
    # Hint reveals store a row each: per learner, and per address for cookie-less floods.
    _wrap(app, "progress.reveal_hint", limiter.limit(
        config["HINT_RATE_LIMIT"], key_func=lambda: "hint:" + submission_key()))
    _wrap(app, "progress.reveal_hint", limiter.limit(
        config["HINT_ADDRESS_RATE_LIMIT"], exempt_when=logged_in,
        key_func=lambda: "hint-address:" + get_remote_address()))

    # Login: failures per address and email (short), and every attempt per address, whichever
    # email it names: each one costs a password hash, and counting emails with an account
    # apart from the others would tell an attacker which emails have one.
    _wrap(app, "accounts.login", limiter.limit(
        config["LOGIN_RATE_LIMIT"], key_func=login_key, methods=["POST"], give_back_when=_succeeded))
    _wrap(app, "accounts.login", limiter.limit(
        config["LOGIN_ADDRESS_RATE_LIMIT"], key_func=address_key, methods=["POST"]))
    _wrap(app, "accounts.register", limiter.limit(
        config["REGISTER_RATE_LIMIT"], key_func=address_key, methods=["POST"]))
    _wrap(app, "accounts.password", limiter.limit(
        config["PASSWORD_CHANGE_RATE_LIMIT"], key_func=account_key, methods=["POST"]))

    # Drafts and quiz answers: per learner, and per address for cookie-less floods.
    drafts = [limiter.shared_limit(config["DRAFT_RATE_LIMIT"], scope="drafts",
                                   key_func=submission_key),
              limiter.shared_limit(config["DRAFT_ADDRESS_RATE_LIMIT"], scope="drafts-address",
                                   key_func=address_key, exempt_when=logged_in)]
    for endpoint in ("progress.put_draft", "progress.delete_draft"):
        for decorator in drafts:
            _wrap(app, endpoint, decorator)
    # Pages that render stored code: one learner reading theirs in parallel loops would take
    # the web threads (GET / went to 1.6 s at p95); reading as a person does stays far below.
    history = limiter.shared_limit(config["HISTORY_RATE_LIMIT"], scope="history", key_func=submission_key)
    for endpoint in ("progress.history", "progress.submission", "progress.submission_code"):
        _wrap(app, endpoint, history)
    quiz = [limiter.shared_limit(config["QUIZ_RATE_LIMIT"], scope="quiz",
                                 key_func=submission_key),
            # All anonymous sessions of an address answer like one learner: per-question
            # verdicts cannot be harvested faster than by answering (QUIZ_ADDRESS_RATE_LIMIT).
            limiter.shared_limit(config["QUIZ_ADDRESS_RATE_LIMIT"], scope="quiz-address",
                                 key_func=address_key, exempt_when=logged_in)]
    for endpoint in ("quizzes.answer", "quizzes.api_answers"):
        for decorator in quiz:
            _wrap(app, endpoint, decorator)
    for endpoint in app.extensions["laip_limited"]:
        app.view_functions[endpoint] = _account_first(app.view_functions[endpoint])
    app.register_error_handler(RateLimitExceeded, too_many)
    app.extensions["laip_limiter"] = limiter
