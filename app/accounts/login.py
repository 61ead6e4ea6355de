"""Flask-Login set-up: loading the account of a session, and the logout form in every page."""

from __future__ import annotations

from flask import Flask
from flask_login import LoginManager
from flask_wtf.csrf import generate_csrf

from app.extensions import db
from app.models import User

login_manager = LoginManager()
login_manager.login_view = "accounts.login"
# "basic": a session whose address or browser changed is marked not fresh. "strong" would log
# out learners whose mobile address changes, and it resets anonymous sessions' Flask-Login keys.
login_manager.session_protection = "basic"


@login_manager.user_loader
def _load_user(user_id: str) -> User | None:
    """The account of a session cookie, unless its sessions were ended since (logout, password)."""
    number, _sep, version = user_id.partition(":")
    if not (number.isdigit() and version.isdigit()) or len(user_id) > 40:
        return None  # also a cookie from before session versions: it is logged out once
    user = db.session.get(User, int(number))
    if user is None or user.session_version != int(version):
        return None
    return user


def init_app(app: Flask) -> None:
    login_manager.init_app(app)
    # The logout button in the header is a small form on every page; it needs a token.
    app.jinja_env.globals["csrf_token"] = generate_csrf
    from app.accounts.cli import users

    app.cli.add_command(users)
