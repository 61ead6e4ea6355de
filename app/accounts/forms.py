"""Account forms (Flask-WTF): each carries a CSRF token that is checked on submit."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import EmailField, PasswordField, SubmitField
from wtforms.validators import DataRequired, EqualTo, Length, Regexp

from app.accounts.passwords import MAX_LENGTH, MIN_LENGTH


def _strip(value: str | None) -> str | None:
    return value.strip() if isinstance(value, str) else value


class LoginForm(FlaskForm):
    email = EmailField(_l("Email"), filters=[_strip], validators=[DataRequired(), Length(max=254)])
    password = PasswordField(_l("Password"), validators=[DataRequired(), Length(max=MAX_LENGTH)])
    submit = SubmitField(_l("Log in"))


class RegisterForm(FlaskForm):
    email = EmailField(
        _l("Email"),
        filters=[_strip],
        validators=[DataRequired(), Length(max=254),
                    # A shape check only (no email_validator dependency): no mail is sent.
                    Regexp(r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
                           message=_l("Enter an email address such as ada@example.org."))],
    )
    password = PasswordField(
        _l("Password"),
        validators=[DataRequired(), Length(
            min=MIN_LENGTH, max=MAX_LENGTH,
            message=_l("Choose a password of %(min)d to %(max)d characters.",
                       min=MIN_LENGTH, max=MAX_LENGTH))],
    )
    confirm = PasswordField(
        _l("Password again"),
        validators=[DataRequired(), EqualTo("password", message=_l("The passwords differ."))],
    )
    submit = SubmitField(_l("Create my account"))


class PasswordForm(FlaskForm):
    current = PasswordField(_l("Current password"),
                            validators=[DataRequired(), Length(max=MAX_LENGTH)])
    password = PasswordField(
        _l("New password"),
        validators=[DataRequired(), Length(
            min=MIN_LENGTH, max=MAX_LENGTH,
            message=_l("Choose a password of %(min)d to %(max)d characters.",
                       min=MIN_LENGTH, max=MAX_LENGTH))],
    )
    confirm = PasswordField(
        _l("New password again"),
        validators=[DataRequired(), EqualTo("password", message=_l("The passwords differ."))],
    )
    submit = SubmitField(_l("Change my password"))


class LogoutForm(FlaskForm):
    """Logging out changes state, so it is a POST with a token, never a plain link."""

    submit = SubmitField(_l("Log out"))
