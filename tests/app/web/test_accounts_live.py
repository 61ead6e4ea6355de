"""Accounts and pages over real HTTP to gunicorn as `make run` starts it: look-alike emails,
common passwords, the history page's limit, and Flask-Limiter's own off switch."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.accounts_helpers import csrf_of
from tests.app.live_server import PASSWORD, Browser, LiveServer

pytestmark = pytest.mark.slow

ATTACKER = "a different pass phrase"  # noqa: S105


@pytest.fixture
def server(tmp_path: Path):
    live = LiveServer(tmp_path, ["victim@example.org"], LOGIN_ADDRESS_RATE_LIMIT="8/minute")
    yield live
    live.close()


def sign_up(browser: Browser, email: str, password: str) -> tuple[int, bytes]:
    status, page, _ = browser.call("GET", "/register")
    assert status == 200
    status, body, _ = browser.call("POST", "/register", form={
        "csrf_token": csrf_of(page.decode()), "email": email, "password": password, "confirm": password})
    return status, body


@pytest.mark.parametrize("look_alike", ["vic\U0001D159tim@example.org", "victim\u0307@example.org",
                                        "victim@example.org."])
def test_a_look_alike_email_never_makes_a_second_account(server: LiveServer, look_alike: str) -> None:
    attacker = Browser(server, "198.51.100.7")
    status, _ = sign_up(attacker, look_alike, ATTACKER)
    assert status in (302, 400), status  # "ready unless it had one" (taken), or refused with a reason
    # Whatever the answer, the look-alike is no account of the attacker's ...
    assert attacker.log_in(look_alike, ATTACKER)[0] == 400
    # ... and the victim still logs in with their own email.
    assert Browser(server, "192.0.2.9").log_in("victim@example.org", PASSWORD)[0] == 302


@pytest.mark.parametrize("password", ["Spring2025!", "Autumn2024!", "Contraseña1"])
def test_common_passwords_are_refused_at_sign_up(server: LiveServer, password: str) -> None:
    status, body = sign_up(Browser(server, "198.51.100.8"), "new.learner@example.org", password)
    assert status == 400 and "common" in body.decode(), (status, body[:200])


def test_one_learner_reading_their_history_in_a_loop_is_limited(server: LiveServer) -> None:
    reader = Browser(server, "198.51.100.9")
    answers = [reader.call("GET", "/exercises/add-numbers/history")[0] for _ in range(41)]
    assert answers[:40] == [200] * 40 and answers[40] == 429, answers
    # Another learner, even behind the same address, reads theirs.
    assert Browser(server, "198.51.100.9").call("GET", "/exercises/add-numbers/history")[0] == 200


def test_ratelimit_enabled_false_turns_the_limits_off(tmp_path: Path) -> None:
    live = LiveServer(tmp_path, ["ada@example.org"], RATELIMIT_ENABLED="false", LOGIN_RATE_LIMIT="2/minute")
    try:
        answers = [Browser(live, "198.51.100.7").log_in("ada@example.org", "wrong guess")[0] for _ in range(4)]
        assert answers == [400] * 4, answers
    finally:
        live.close()


def test_create_app_with_flask_limiter_s_switch_off(make_app) -> None:
    app = make_app(RATELIMIT_ENABLED=False)  # was a bare AssertionError from Flask-Limiter
    assert app.extensions["laip_limiter"].enabled is False
    assert app.test_client().get("/").status_code == 200
