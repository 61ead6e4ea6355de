"""Flask-Login set-up: loading the account of a session, and the logout form in every page."""

from __future__ import annotations

from flask import Flask
from flask_login import LoginManager
from flask_wtf.csrf import generate_csrf

from app.accounts.models import User
from app.extensions import db

login_manager = LoginManager()
login_manager.login_view = "accounts.login"
# "basic": a session whose address or browser changed is marked not fresh. "strong" would log
# out learners whose mobile address changes, and it resets anonymous sessions' Flask-Login keys.
login_manager.session_protection = "basic"


@login_manager.user_loader
def _load_user(user_id: str) -> User | None:
    if not user_id.isdigit():
        return None
    return db.session.get(User, int(user_id))


def init_app(app: Flask) -> None:
    login_manager.init_app(app)
    # The logout button in the header is a small form on every page; it needs a token.
    app.jinja_env.globals["csrf_token"] = generate_csrf
    from app.accounts.cli import users

    app.cli.add_command(users)
