"""No rate limit counts a request the server failed: every limit of every rate-limited route, found by asking the app.

The routes are found by sending every route of the app one request and reading which limits
Flask-Limiter applied, so a limited route or a limit added later without a case here fails
`test_every_limit_of_every_route_has_a_case`. The failure is the database going away after
the limits counted the request (every statement then raises OperationalError, as a dropped
PostgreSQL connection does), answered 503 by app.errors; tests/celery/test_faults.py does the
same with a real PostgreSQL outage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, current_app, has_request_context, request
from flask.testing import FlaskClient
from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from werkzeug.test import TestResponse

from app.extensions import db
from tests.app.accounts_helpers import GOOD, PASSWORD, QUIZ_ID, add_quiz, csrf_of, form_post, login, make_user

SETTINGS = ["SUBMISSION_RATE_LIMIT", "SUBMISSION_ADDRESS_RATE_LIMIT", "LOGIN_RATE_LIMIT",
            "LOGIN_ADDRESS_RATE_LIMIT", "REGISTER_RATE_LIMIT", "PASSWORD_CHANGE_RATE_LIMIT",
            "DRAFT_RATE_LIMIT", "DRAFT_ADDRESS_RATE_LIMIT", "QUIZ_RATE_LIMIT", "QUIZ_ADDRESS_RATE_LIMIT",
            "RUN_ADDRESS_RATE_LIMIT", "HINT_RATE_LIMIT", "HINT_ADDRESS_RATE_LIMIT", "HISTORY_RATE_LIMIT"]
EMAIL = "ada@example.org"
DRAFT = "/api/exercises/add-numbers/draft"
HINT = "/api/exercises/add-numbers/hints/adds/2"


def add_hint(exercises: Path) -> None:
    """A check with a hint ladder in add-numbers, so that a hint reveal reaches the database."""
    folder = exercises / "add-numbers"
    (folder / "tests" / "test_add.py").write_text(
        "from grader import check\n\n@check('adds')\ndef test_add():\n    pass\n", encoding="utf-8")
    (folder / "hints.toml").write_text(
        '[adds]\nconcept = { en = "Plus adds.", ja = "足します。" }\napi = { en = "`+`", ja = "`+`" }\n',
        encoding="utf-8")


@dataclass
class Case:
    """How to reach a route: a request that gets past the limits to the database, and one the server serves."""

    failing: Callable[[FlaskClient], TestResponse]
    served: Callable[[FlaskClient], TestResponse]
    logged_in: bool = False


CASES: dict[tuple[str, str], Case] = {
    ("api.submit", "POST"): Case(
        lambda c: c.post("/api/exercises/add-numbers/submissions", json={"code": GOOD}),
        lambda c: c.post("/api/exercises/add-numbers/submissions", json={"code": 3})),
    ("api.run", "POST"): Case(
        lambda c: c.post("/api/exercises/add-numbers/run", json={"code": "print(1)"}),
        lambda c: c.post("/api/exercises/add-numbers/run", json={"code": 3})),
    ("accounts.login", "POST"): Case(
        lambda c: form_post(c, "/login", {"email": "nobody@example.org", "password": "guess"}),
        lambda c: form_post(c, "/login", {"email": "nobody@example.org", "password": "guess"})),
    ("accounts.register", "POST"): Case(
        lambda c: form_post(c, "/register", {"email": "new@example.org", "password": PASSWORD, "confirm": PASSWORD}),
        lambda c: form_post(c, "/register", {"email": "new@example.org", "password": PASSWORD, "confirm": "other"})),
    ("accounts.password", "POST"): Case(
        lambda c: form_post(c, "/account/password", {"current": PASSWORD, "password": "a new pass phrase",
                                                "confirm": "a new pass phrase"}),
        lambda c: form_post(c, "/account/password", {"current": "wrong", "password": "a new pass phrase",
                                                "confirm": "a new pass phrase"}),
        logged_in=True),
    ("progress.put_draft", "PUT"): Case(lambda c: c.put(DRAFT, json={"code": "x = 1"}),
                                        lambda c: c.put(DRAFT, json={"code": "x = 1"})),
    ("progress.delete_draft", "DELETE"): Case(lambda c: c.delete(DRAFT), lambda c: c.delete(DRAFT)),
    ("quizzes.answer", "POST"): Case(lambda c: form_post(c, f"/quizzes/{QUIZ_ID}", {"bits": "32"}),
                                     lambda c: form_post(c, f"/quizzes/{QUIZ_ID}", {"bits": "32"})),
    ("quizzes.api_answers", "POST"): Case(
        lambda c: c.post(f"/api/quizzes/{QUIZ_ID}/answers", json={"answers": {"bits": 32}}),
        lambda c: c.post(f"/api/quizzes/{QUIZ_ID}/answers", json={"answers": {"bits": 32}})),
    ("progress.reveal_hint", "POST"): Case(lambda c: c.post(HINT, json={}), lambda c: c.post(HINT, json={})),
    ("progress.history", "GET"): Case(lambda c: c.get("/exercises/add-numbers/history"),
                                      lambda c: c.get("/exercises/add-numbers/history")),
    ("progress.submission", "GET"): Case(lambda c: c.get("/submissions/x"), lambda c: c.get("/submissions/x")),
    ("progress.submission_code", "GET"): Case(lambda c: c.get("/submissions/x/code"),
                                              lambda c: c.get("/submissions/x/code")),
}

# Which setting limits which route: each (route, setting) pair is one case of the test below.
LIMITED = {
    ("api.submit", "POST"): {"SUBMISSION_RATE_LIMIT", "SUBMISSION_ADDRESS_RATE_LIMIT"},
    ("api.run", "POST"): {"SUBMISSION_RATE_LIMIT", "SUBMISSION_ADDRESS_RATE_LIMIT", "RUN_ADDRESS_RATE_LIMIT"},
    ("accounts.login", "POST"): {"LOGIN_RATE_LIMIT", "LOGIN_ADDRESS_RATE_LIMIT"},
    ("accounts.register", "POST"): {"REGISTER_RATE_LIMIT"},
    ("accounts.password", "POST"): {"PASSWORD_CHANGE_RATE_LIMIT"},
    ("progress.put_draft", "PUT"): {"DRAFT_RATE_LIMIT", "DRAFT_ADDRESS_RATE_LIMIT"},
    ("progress.delete_draft", "DELETE"): {"DRAFT_RATE_LIMIT", "DRAFT_ADDRESS_RATE_LIMIT"},
    ("quizzes.answer", "POST"): {"QUIZ_RATE_LIMIT", "QUIZ_ADDRESS_RATE_LIMIT"},
    ("quizzes.api_answers", "POST"): {"QUIZ_RATE_LIMIT", "QUIZ_ADDRESS_RATE_LIMIT"},
    ("progress.reveal_hint", "POST"): {"HINT_RATE_LIMIT", "HINT_ADDRESS_RATE_LIMIT"},
    ("progress.history", "GET"): {"HISTORY_RATE_LIMIT"},
    ("progress.submission", "GET"): {"HISTORY_RATE_LIMIT"},
    ("progress.submission_code", "GET"): {"HISTORY_RATE_LIMIT"},
}


def applied_limits(app: Flask) -> list[tuple[str | None, str, set[int]]]:
    """After each request: (endpoint, method, amounts of the limits Flask-Limiter counted it under)."""
    seen: list[tuple[str | None, str, set[int]]] = []
    limiter = app.extensions["laip_limiter"]

    @app.after_request
    def note(response: Any) -> Any:
        seen.append((request.endpoint, request.method, {lim.limit.amount for lim in limiter.current_limits}))
        return response

    return seen


def test_every_limit_of_every_route_has_a_case(make_app, content) -> None:
    add_quiz(content["exercises"])
    add_hint(content["exercises"])
    amounts = {setting: 901 + n for n, setting in enumerate(SETTINGS)}  # one amount names one setting
    app = make_app(**{setting: f"{amount}/minute" for setting, amount in amounts.items()})
    seen = applied_limits(app)
    client = app.test_client()
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        path = rule.rule
        for argument in rule.arguments:  # any value reaches the limits: they run before the view
            path = path.replace(f"<{argument}>", "x").replace(f"<path:{argument}>", "x")
            path = path.replace(f"<int:{argument}>", "1")
        assert "<" not in path, f"fill in the converter of {rule.rule}"
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            client.open(path, method=method, json={})  # the API's body
            client.open(path, method=method, data={"email": "x"})  # a form's (JSON never reaches a form's limits)
    names = {amount: setting for setting, amount in amounts.items()}
    found: dict[tuple[str, str], set[str]] = {}
    for endpoint, method, counted in seen:
        if counted:
            unknown = counted - set(names)
            assert not unknown, f"{endpoint} has a limit no setting here names: {unknown}"
            found.setdefault((str(endpoint), method), set()).update(names[a] for a in counted)
    assert found == LIMITED, "a rate-limited route or limit without a case in this test"
    assert set(CASES) == set(LIMITED)


def failing_database(app: Flask, after_limits: bool = True) -> dict[str, bool]:
    """A switch: while on, every statement a request runs (after its limits counted it) raises."""
    switch = {"on": False}
    with app.app_context():
        engine = db.engine

    @event.listens_for(engine, "before_cursor_execute")
    def drop(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        counted = has_request_context() and current_app.extensions["laip_limiter"].current_limits
        if switch["on"] and has_request_context() and (counted or not after_limits):
            raise OperationalError(statement, None, ConnectionError("the test stopped the database"))

    return switch


@pytest.mark.parametrize(("route", "setting"), [
    pytest.param(route, setting, id=f"{route[0]}-{setting}")
    for route, settings in sorted(LIMITED.items()) for setting in sorted(settings)])
def test_a_request_the_server_failed_never_counts(make_app, content, route, setting) -> None:
    add_quiz(content["exercises"])
    add_hint(content["exercises"])
    # The limit under test allows 2 a minute; every other is out of the way.
    limits = {name: "1000/minute" for name in SETTINGS} | {setting: "2/minute"}
    app = make_app(**limits, RUN_MAX_PENDING_PER_LEARNER=1000, RUN_MAX_PENDING_PER_ANON_ADDRESS=1000)
    seen = applied_limits(app)
    case = CASES[route]
    client = app.test_client()
    if case.logged_in:
        make_user(app, EMAIL)
        assert login(client, EMAIL).status_code == 302
    database = failing_database(app)

    database["on"] = True
    failed = [case.failing(client) for _ in range(3)]
    database["on"] = False
    assert [r.status_code for r in failed] == [503] * 3, [r.get_data(as_text=True)[:200] for r in failed]
    counted = [amounts for endpoint, method, amounts in seen if (endpoint, method) == route]
    assert counted[:3] == [counted[0]] * 3 and 2 in counted[0], "the limit under test did not count them"

    # Three failed requests on a limit of 2: none counted, so two served ones pass, the third is refused.
    served = [case.served(client).status_code for _ in range(3)]
    assert 429 not in served[:2] and all(code < 500 for code in served[:2]), served
    assert served[2] == 429, served


@pytest.mark.parametrize("who", ["logged-in password change", "anonymous login"])
def test_a_database_outage_is_not_taken_for_the_limiter_s_own_storage(make_app, who) -> None:
    # The limits' key and exemption functions read the account; an error raised there makes
    # Flask-Limiter skip the request's limits and count in memory instead of its storage.
    app = make_app()
    limiter = app.extensions["laip_limiter"]
    client = app.test_client()
    if who == "logged-in password change":  # no quota check reads the account before the limits
        make_user(app, EMAIL)
        assert login(client, EMAIL).status_code == 302
        token = csrf_of(client.get("/account/password").get_data(as_text=True))

        def send() -> TestResponse:
            return client.post("/account/password", data={"csrf_token": token, "current": PASSWORD,
                                                           "password": "a new pass phrase",
                                                           "confirm": "a new pass phrase"})
    else:
        token = csrf_of(client.get("/login").get_data(as_text=True))

        def send() -> TestResponse:
            return client.post("/login", data={"csrf_token": token, "email": EMAIL, "password": "guess"})
    own = limiter.limiter
    database = failing_database(app, after_limits=False)
    database["on"] = True
    codes = [send().status_code for _ in range(3)]
    database["on"] = False
    assert codes == [503] * 3
    assert limiter.limiter is own, "Flask-Limiter took the database's outage for its storage's"
