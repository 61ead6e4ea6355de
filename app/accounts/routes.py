"""Views: sign up, log in, log out, change the password; anonymous work is adopted on the way in."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required, login_user, logout_user
from werkzeug.wrappers import Response

from app.accounts import bp
from app.accounts.forms import LoginForm, LogoutForm, PasswordForm, RegisterForm
from app.accounts.identity import SESSION_KEY, anonymous_key
from app.accounts.merge import adopt_anonymous_work
from app.accounts.passwords import hash_password
from app.accounts.users import AccountError, authenticate, change_password, create_user, end_sessions
from app.i18n import safe_next
from app.models import User

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _reason_message(reason: str) -> str:
    messages = {
        "email_taken": _("An account with this email exists already. Log in instead."),
        "bad_email": _("This email address has characters that cannot be seen or that reorder "
                       "text (such as a zero-width space). Type the address again by hand."),
        "bad_password": _("This password cannot be used."),
        "common_password": _("This password is one of the most common ones, so it is guessed "
                             "first. Choose a longer, less usual one (a short sentence works)."),
        "weak_password": _("This password is easy to guess (a common word, name, date or "
                           "keyboard pattern). Choose a longer one: a short sentence of "
                           "unusual words works."),
        "mixed_script_email": _("This email mixes alphabets that look alike (such as a Cyrillic "
                                "“а” among Latin letters). Type the address again by hand."),
        "password_is_email": _("The password must not contain your email address."),
        "wrong_password": _("The current password is not right."),
    }
    return messages.get(reason, _("This account cannot be created."))


@bp.before_request
def _forms_only() -> tuple[str, int] | None:
    """The account forms take form bodies only: a JSON body would skip the email-keyed limit."""
    if request.method == "POST" and request.mimetype not in FORM_TYPES:
        message = _("Send this form from its page (a form body, not JSON).")
        return render_template("errors/page.html", status=400, message=message), 400
    return None


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
            create_user(form.email.data or "", form.password.data or "")
        except AccountError as exc:
            if exc.reason != "email_taken":
                field = form.email if exc.reason in ("bad_email", "mixed_script_email") else form.password
                field.errors = [_reason_message(exc.reason)]
                return render_template("accounts/register.html", form=form), 400
            # The email has an account: answer exactly as for a new one, after the same work
            # (one password hash), so that the form tells no one which emails have accounts.
            hash_password(form.password.data or "")
        # Either way the learner logs in next; work done before is adopted then (_enter).
        # The login form is filled in with this email (a taken one too: the same answer).
        session["signup_email"] = (form.email.data or "").strip()[:254]
        flash(_("Your account is ready, unless this email had one already (then nothing "
                "changed). Log in with this email and your password."))
        return redirect(url_for("accounts.login", next=request.args.get("next") or None))
    status = 400 if form.is_submitted() else 200
    return render_template("accounts/register.html", form=form), status


@bp.route("/login", methods=["GET", "POST"])
def login() -> str | Response | tuple[str, int]:
    if current_user.is_authenticated:
        return redirect(_next_url())
    form = LoginForm()
    error = None
    if not form.is_submitted() and not form.email.data:
        form.email.data = session.pop("signup_email", None)
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


@bp.route("/account/password", methods=["GET", "POST"])
@login_required
def password() -> str | Response | tuple[str, int]:
    form = PasswordForm()
    if form.validate_on_submit():
        user = current_user._get_current_object()
        try:
            change_password(user, form.current.data or "", form.password.data or "")
        except AccountError as exc:
            field = form.current if exc.reason == "wrong_password" else form.password
            field.errors = [_reason_message(exc.reason)]
        else:
            login_user(user)  # this browser stays in with the new session version
            flash(_("Your password is changed. Every other browser was logged out."))
            return redirect(url_for("progress.dashboard"))
    status = 400 if form.is_submitted() else 200
    response = render_template("accounts/password.html", form=form)
    return response, status


@bp.post("/logout")
def logout() -> Response:
    if LogoutForm().validate_on_submit():
        if current_user.is_authenticated:
            # Ends the session on the server too: a copied or old cookie no longer logs in.
            end_sessions(current_user._get_current_object())
        logout_user()
        session.clear()  # the next visitor of this browser starts as a new anonymous learner
    return redirect(url_for("lessons.course"))
