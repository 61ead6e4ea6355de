"""Views: sign up, log in, log out; anonymous work is adopted by the account on the way in."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_user, logout_user
from werkzeug.wrappers import Response

from app.accounts import bp
from app.accounts.forms import LoginForm, LogoutForm, RegisterForm
from app.accounts.identity import SESSION_KEY, anonymous_key
from app.accounts.merge import adopt_anonymous_work
from app.accounts.models import User
from app.accounts.users import AccountError, authenticate, create_user
from app.i18n import safe_next


def _next_url() -> str:
    target = request.args.get("next")
    return safe_next(target) if target else url_for("progress.dashboard")


def _enter(user: User) -> Response:
    """Log the account in and hand it what this browser did anonymously."""
    anonymous = anonymous_key(create=False)
    login_user(user)
    adopt_anonymous_work(anonymous, user.learner_key)
    session.pop(SESSION_KEY, None)  # the account's key is used from now on
    return redirect(_next_url())


@bp.route("/register", methods=["GET", "POST"])
def register() -> str | Response | tuple[str, int]:
    if current_user.is_authenticated:
        return redirect(url_for("progress.dashboard"))
    form = RegisterForm()
    if form.validate_on_submit():
        try:
            user = create_user(form.email.data or "", form.password.data or "")
        except AccountError as exc:
            message = (_("An account with this email exists already. Log in instead.")
                       if exc.reason == "email_taken" else _("This account cannot be created."))
            form.email.errors = [message]
        else:
            flash(_("Welcome! Your account is ready, and your earlier work is kept."))
            return _enter(user)
    status = 400 if form.is_submitted() else 200
    return render_template("accounts/register.html", form=form), status


@bp.route("/login", methods=["GET", "POST"])
def login() -> str | Response | tuple[str, int]:
    if current_user.is_authenticated:
        return redirect(_next_url())
    form = LoginForm()
    error = None
    if form.validate_on_submit():
        user = authenticate(form.email.data or "", form.password.data or "")
        if user is not None:
            return _enter(user)
        # One message for an unknown email and a wrong password: no one learns who has an account.
        error = _("The email or the password is not right.")
    elif form.is_submitted():
        error = _("Fill in both fields, then log in again.") if not form.csrf_token.errors \
            else _("The form expired. Please try again.")
    status = 400 if form.is_submitted() else 200
    return render_template("accounts/login.html", form=form, error=error), status


@bp.post("/logout")
def logout() -> Response:
    if LogoutForm().validate_on_submit():
        logout_user()
        session.clear()  # the next visitor of this browser starts as a new anonymous learner
    return redirect(url_for("lessons.course"))
