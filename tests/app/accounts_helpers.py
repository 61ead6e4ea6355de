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


QUIZ_ID = "quiz-mine"
QUIZ_TOML = """
[[questions]]
id = "half"
kind = "single"
answer = "fp16"
text = { en = "Which dtype is 16 bits?", ja = "16 ビットの dtype はどれですか。" }
explanation = { en = "float16 has 16 bits.", ja = "float16 は 16 ビットです。" }
choices = [
  { id = "fp32", text = { en = "float32", ja = "float32" } },
  { id = "fp16", text = { en = "float16", ja = "float16" } },
]

[[questions]]
id = "bits"
kind = "numeric"
answer = 32
text = { en = "How many bits has float32?", ja = "float32 は何ビットですか。" }
explanation = { en = "32.", ja = "32 です。" }
"""


def add_quiz(exercises_dir) -> str:
    """A small, valid quiz in lesson 1 of the test content."""
    folder = exercises_dir / QUIZ_ID
    folder.mkdir()
    (folder / "exercise.toml").write_text(
        f'id = "{QUIZ_ID}"\nlesson = 1\norder = 4\nkind = "quiz"\n'
        '[title]\nen = "Small quiz"\nja = "小さなクイズ"\n', encoding="utf-8")
    (folder / "prompt.md").write_text("Answer these.\n", encoding="utf-8")
    (folder / "quiz.toml").write_text(QUIZ_TOML, encoding="utf-8")
    return QUIZ_ID


def answer_quiz(client: FlaskClient, answers: dict[str, object]) -> dict[str, object]:
    response = client.post(f"/api/quizzes/{QUIZ_ID}/answers", json={"answers": answers})
    assert response.status_code == 200, response.get_json()
    body: dict[str, object] = response.get_json()
    return body
