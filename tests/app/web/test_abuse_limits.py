"""Limits on everything that writes or hashes, and lockout that is no weapon (small limits set
per test so that each runs in seconds; the defaults are in app/config.py and docs/security.md)."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from app.extensions import db
from app.models import Draft, QuizAttempt, User
from tests.app.accounts_helpers import PASSWORD, QUIZ_ID, add_quiz, csrf_of, login, make_user

ATTACKER, OWNER = "10.0.0.66", "10.0.0.7"
DRAFT_URL = "/api/exercises/add-numbers/draft"


def browser(app: Flask, address: str) -> FlaskClient:
    """A new browser whose requests come from this address."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def count(app: Flask, model: type) -> int:
    with app.app_context():
        found: int = db.session.scalar(select(func.count()).select_from(model))
        db.session.remove()
        return found


def test_wrong_passwords_elsewhere_do_not_lock_the_owner_out(make_app) -> None:
    app = make_app(LOGIN_RATE_LIMIT="2/minute", LOGIN_ADDRESS_RATE_LIMIT="4/minute")
    make_user(app, "ada@example.org")
    attacker = browser(app, ATTACKER)
    assert [login(attacker, "ada@example.org", "guess").status_code for _ in range(3)] == [400, 400, 429]
    # The owner, from their own address and with the right password, still gets in ...
    assert login(browser(app, OWNER), "ada@example.org", PASSWORD).status_code == 302
    # ... and logging in successfully uses up nothing of the per-account limit.
    for _ in range(2):
        assert login(browser(app, OWNER), "ada@example.org", PASSWORD).status_code == 302


def test_one_address_cannot_spray_many_emails(make_app) -> None:
    app = make_app(LOGIN_RATE_LIMIT="2/minute", LOGIN_ADDRESS_RATE_LIMIT="4/minute")
    attacker = browser(app, ATTACKER)
    codes = [login(attacker, f"user{n}@example.org", "guess").status_code for n in range(6)]
    assert codes == [400] * 4 + [429] * 2  # each a different email: only the address limit
    assert login(browser(app, OWNER), "user1@example.org", "guess").status_code == 400  # others go on


def test_a_json_login_is_refused_and_cannot_dodge_the_email_key(make_app) -> None:
    app = make_app(LOGIN_RATE_LIMIT="2/minute", LOGIN_ADDRESS_RATE_LIMIT="50/minute")
    make_user(app, "ada@example.org")
    attacker = browser(app, ATTACKER)
    for _ in range(3):
        response = attacker.post("/login", json={"email": "ada@example.org", "password": "g"})
        assert response.status_code == 400  # refused before any password hash is computed
    assert [login(attacker, "ada@example.org", "guess").status_code for _ in range(3)] == [400, 400, 429]


def test_sign_ups_are_limited_per_address(make_app) -> None:
    app = make_app(REGISTER_RATE_LIMIT="2/minute")
    attacker = browser(app, ATTACKER)

    def sign_up(client: FlaskClient, email: str) -> int:
        token = csrf_of(client.get("/register").get_data(as_text=True))
        return client.post("/register", data={"csrf_token": token, "email": email,
                                               "password": PASSWORD,
                                               "confirm": PASSWORD}).status_code

    codes = [sign_up(browser(app, ATTACKER), f"bot{n}@example.org") for n in range(3)]
    assert codes == [302, 302, 429]
    assert "Wait a few minutes" in attacker.post("/register", data={"email": "x"}).get_data(as_text=True)
    assert sign_up(browser(app, OWNER), "ada@example.org") == 302
    assert count(app, User) == 3


def test_drafts_are_limited_per_learner_and_per_address(make_app) -> None:
    app = make_app(DRAFT_RATE_LIMIT="3/minute", DRAFT_ADDRESS_RATE_LIMIT="5/minute")
    learner = browser(app, OWNER)
    codes = [learner.put(DRAFT_URL, json={"code": f"# {n}"}).status_code for n in range(4)]
    assert codes == [200, 200, 200, 429]
    refused = learner.put(DRAFT_URL, json={"code": "# again"})
    assert refused.get_json()["error"] == "too_many_drafts"
    # A new anonymous session per request: the address limit holds them all.
    flood = [browser(app, ATTACKER).put(DRAFT_URL, json={"code": "x"}).status_code
             for _ in range(6)]
    assert flood == [200] * 5 + [429]
    assert count(app, Draft) == 1 + 5


def test_quiz_answers_are_limited_across_the_form_and_the_api(make_app, content) -> None:
    add_quiz(content["exercises"])
    app = make_app(QUIZ_RATE_LIMIT="3/minute", QUIZ_ADDRESS_RATE_LIMIT="100/minute")
    learner = browser(app, OWNER)
    url = f"/api/quizzes/{QUIZ_ID}/answers"
    codes = [learner.post(url, json={"answers": {"bits": 32}}).status_code for _ in range(2)]
    token = csrf_of(learner.get(f"/quizzes/{QUIZ_ID}").get_data(as_text=True))
    # Each submit answers a question: an empty one is refused before it is graded.
    codes.append(learner.post(f"/quizzes/{QUIZ_ID}", data={"csrf_token": token, "bits": "32"}).status_code)
    codes.append(learner.post(url, json={"answers": {"bits": 32}}).status_code)
    assert codes == [200, 200, 303, 429]
    learner.set_cookie("lang", "ja")
    form = learner.post(f"/quizzes/{QUIZ_ID}", data={"csrf_token": token, "bits": "32"})
    assert form.status_code == 429 and "もう一度答え合わせ" in form.get_data(as_text=True)
    assert count(app, QuizAttempt) == 3


def test_password_changes_are_limited_per_account(make_app) -> None:
    app = make_app(PASSWORD_CHANGE_RATE_LIMIT="2/minute")
    make_user(app, "ada@example.org")
    client = browser(app, OWNER)
    assert login(client, "ada@example.org", PASSWORD).status_code == 302
    codes = []
    for _ in range(3):
        token = csrf_of(client.get("/account/password").get_data(as_text=True))
        codes.append(client.post("/account/password", data={
            "csrf_token": token, "current": "wrong one", "password": "a new pass phrase",
            "confirm": "a new pass phrase"}).status_code)
    assert codes == [400, 400, 429]


@pytest.mark.parametrize("setting", ["LOGIN_ADDRESS_RATE_LIMIT", "REGISTER_RATE_LIMIT",
                                     "DRAFT_RATE_LIMIT", "QUIZ_RATE_LIMIT",
                                     "PASSWORD_CHANGE_RATE_LIMIT", "DRAFT_ADDRESS_RATE_LIMIT",
                                     "QUIZ_ADDRESS_RATE_LIMIT", "LOGIN_RATE_LIMIT"])
def test_every_limit_is_read_from_the_environment(monkeypatch, tmp_path, setting) -> None:
    from app.config import from_environment

    monkeypatch.setenv(setting, "7/hour")
    assert from_environment(str(tmp_path))[setting] == "7/hour"
