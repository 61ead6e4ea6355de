"""Helpers for the account, progress and instructor tests: CSRF tokens, sign-up, log-in."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from app.accounts.users import create_user
from app.extensions import db

PASSWORD = "correct horse battery"
URL = "/api/exercises/add-numbers/submissions"
GOOD = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a - b\n"


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', html)
    assert match, "the page carries a CSRF token"
    return match.group(1)


def form_post(client: FlaskClient, page: str, fields: dict[str, str], action: str | None = None):
    """Fill in the form of `page` with its own CSRF token, as a browser would."""
    token = csrf_of(client.get(page).get_data(as_text=True))
    return client.post(action or page, data={"csrf_token": token, **fields})


def register(client: FlaskClient, email: str, password: str = PASSWORD):
    return form_post(client, "/register",
                     {"email": email, "password": password, "confirm": password})


def login(client: FlaskClient, email: str, password: str = PASSWORD):
    return form_post(client, "/login", {"email": email, "password": password})


def logout(client: FlaskClient):
    return form_post(client, "/", {}, action="/logout")


def make_user(app: Flask, email: str, role: str = "learner", password: str = PASSWORD) -> int:
    with app.app_context():
        user_id: int = create_user(email, password, role).id
        db.session.remove()
        return user_id


def signed_in(app: Flask, email: str, role: str = "learner") -> FlaskClient:
    """A new browser with a new account, logged in."""
    make_user(app, email, role)
    client = app.test_client()
    assert login(client, email).status_code == 302
    return client
