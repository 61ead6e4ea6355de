"""Sessions end on the server (logout, password change), emails are normalised, HTTPS settings,
and diffs cost bounded work."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from app.accounts.emails import email_is_clean, normalize_email
from app.accounts.passwords import password_problem
from app.extensions import db
from app.models import Submission, User
from tests.app.accounts_helpers import PASSWORD, csrf_of, login, logout, make_user, signed_in

DRAFT_URL = "/api/exercises/add-numbers/draft"
NEW = "a brand new pass phrase"


def who(client: FlaskClient) -> str | None:
    """The email in the page header, or None when the page is anonymous."""
    html = client.get("/progress").get_data(as_text=True)
    return "ada@example.org" if "ada@example.org" in html else None


def copy_of(app: Flask, client: FlaskClient) -> FlaskClient:
    """Another browser holding the same session cookie (a stolen or an old copy)."""
    other = app.test_client()
    other.set_cookie("session", client.get_cookie("session").value)
    return other


def change_password(client: FlaskClient, current: str, new: str):
    token = csrf_of(client.get("/account/password").get_data(as_text=True))
    return client.post("/account/password", data={"csrf_token": token, "current": current,
                                                  "password": new, "confirm": new})


def test_logout_ends_the_session_on_the_server(app) -> None:
    client = signed_in(app, "ada@example.org")
    assert client.put(DRAFT_URL, json={"code": "# my private draft"}).status_code == 200
    old = copy_of(app, client)
    assert who(old) == "ada@example.org"
    logout(client)
    assert who(old) is None  # the old cookie no longer reads the account ...
    assert old.get(DRAFT_URL).get_json()["code"] is None  # ... nor its drafts
    assert login(app.test_client(), "ada@example.org").status_code == 302  # logging in again works


def test_changing_the_password_logs_out_every_other_browser(app) -> None:
    laptop = signed_in(app, "ada@example.org")
    phone = app.test_client()
    assert login(phone, "ada@example.org").status_code == 302
    response = change_password(laptop, PASSWORD, NEW)
    assert response.status_code == 302
    assert who(laptop) == "ada@example.org"  # the browser that changed it stays in
    assert who(phone) is None
    assert login(app.test_client(), "ada@example.org").status_code == 400  # the old password
    assert login(app.test_client(), "ada@example.org", NEW).status_code == 302


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_password_page_needs_a_login_and_a_csrf_token(app, lang) -> None:
    anonymous = app.test_client()
    assert anonymous.get("/account/password").status_code == 302
    client = signed_in(app, "ada@example.org")
    client.set_cookie("lang", lang)
    page = client.get("/account/password").get_data(as_text=True)
    assert ("パスワードを変更する" in page) == (lang == "ja")
    response = client.post("/account/password", data={"current": PASSWORD, "password": NEW,
                                                      "confirm": NEW})
    assert response.status_code == 400
    assert login(app.test_client(), "ada@example.org").status_code == 302  # unchanged


def test_a_cookie_from_before_session_versions_is_logged_out(app) -> None:
    user_id = make_user(app, "ada@example.org")
    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"] = str(user_id)  # the old format: the id alone
        session["_fresh"] = True
    assert who(client) is None


def test_emails_are_normalised_and_invisible_characters_refused() -> None:
    assert normalize_email(" ＡＤＡ@Example.ORG ") == "ada@example.org"
    assert email_is_clean("ada@example.org") and email_is_clean("ädä@例え.jp")
    for bad in ("ada\u200b@example.org", "a\u00adda@example.org", "\u202eada@example.org",
                "ada\u2066@example.org", "a\u2028da@example.org", "ada\x00@example.org",
                "ada\u180e@example.org"):
        assert not email_is_clean(normalize_email(bad)), repr(bad)


def test_the_command_line_refuses_look_alike_emails_and_common_passwords(app) -> None:
    cli = app.test_cli_runner()
    refused = cli.invoke(args=["users", "create", "--email", "ada\u200b@example.org",
                               "--password", PASSWORD])
    assert refused.exit_code != 0 and "invisible" in refused.output
    common = cli.invoke(args=["users", "create", "--email", "ada@example.org",
                              "--password", "password123"])
    assert common.exit_code != 0 and "common" in common.output


def test_password_rule() -> None:
    assert password_problem("password") == "common"
    assert password_problem("Password2024!") == "common"
    assert password_problem("zzzzzzzzzz") == "common"
    assert password_problem("short") == "length"
    assert password_problem("ada.lovelace-1815", "ada.lovelace@example.org") == "email"
    assert password_problem(PASSWORD, "ada@example.org") is None


def test_https_gets_secure_cookies_and_hsts(app) -> None:
    client = signed_in(app, "ada@example.org")
    plain = client.get("/")
    assert "Strict-Transport-Security" not in plain.headers
    secure = app.test_client()
    page = secure.get("/login", base_url="https://localhost")
    assert page.headers["Strict-Transport-Security"] == "max-age=31536000"
    token = csrf_of(page.get_data(as_text=True))
    response = secure.post("/login", base_url="https://localhost",
                           headers={"Referer": "https://localhost/login"},
                           data={"csrf_token": token, "email": "ada@example.org",
                                 "password": PASSWORD})
    assert response.status_code == 302
    assert "Secure" in response.headers["Set-Cookie"]


def test_trusted_proxies_give_each_client_its_own_address(make_app) -> None:
    trusting = make_app(TRUSTED_PROXIES=1, DRAFT_ADDRESS_RATE_LIMIT="2/minute")
    for address in ("203.0.113.1", "203.0.113.2"):
        codes = [trusting.test_client().put(DRAFT_URL, json={"code": "x"},
                                            headers={"X-Forwarded-For": address}).status_code
                 for _ in range(2)]
        assert codes == [200, 200], address  # each client has its own limit
    proto = trusting.test_client().get("/", headers={"X-Forwarded-Proto": "https"})
    assert "Strict-Transport-Security" in proto.headers


def test_without_trusted_proxies_forwarded_headers_are_ignored(make_app) -> None:
    direct = make_app(DRAFT_ADDRESS_RATE_LIMIT="2/minute")
    codes = [direct.test_client().put(DRAFT_URL, json={"code": "x"},
                                      headers={"X-Forwarded-For": f"203.0.113.{n}"}).status_code
             for n in range(3)]
    assert codes == [200, 200, 429]  # a forged header does not dodge the limit
    proto = direct.test_client().get("/", headers={"X-Forwarded-Proto": "https"})
    assert "Strict-Transport-Security" not in proto.headers


def _stored_pair(app: Flask, client: FlaskClient, before: str, after: str) -> list[str]:
    """Two submissions of add-numbers stored for this browser's account, oldest first."""
    with app.app_context():
        key = db.session.scalar(select(User.learner_key))
        ids = []
        for code in (before, after):
            sub = Submission(exercise_id="add-numbers", learner=key, code=code, status="queued")
            db.session.add(sub)
            db.session.commit()
            ids.append(sub.id)
        db.session.remove()
    return ids


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_costly_diff_is_cut_short_and_the_page_says_so(make_app, lang) -> None:
    # Many distinct lines, each repeated: difflib's worst case (quadratic) on code of this shape.
    app = make_app(DIFF_MAX_SECONDS=0.01)
    client = signed_in(app, "ada@example.org")
    client.set_cookie("lang", lang)
    before = "\n".join(f"x{i % 100}" for i in range(2000))
    after = "\n".join(f"x{(i * 7) % 100}" for i in range(2000))
    _first, second = _stored_pair(app, client, before, after)
    for url in ("/exercises/add-numbers/history", f"/submissions/{second}"):
        html = client.get(url).get_data(as_text=True)
        expected = "差分が大きすぎる" if lang == "ja" else "The diff is too large to show."
        assert expected in html and 'class="diff-add"' not in html, url


def test_a_diff_beyond_the_line_cap_is_not_computed(make_app) -> None:
    app = make_app(DIFF_MAX_LINES=100)
    client = signed_in(app, "ada@example.org")
    _stored_pair(app, client, "a\n" * 101, "b\n" * 101)
    assert "The diff is too large" in client.get("/exercises/add-numbers/history").get_data(
        as_text=True)


def test_an_ordinary_diff_is_shown_and_cached(make_app) -> None:
    from app.progress.diff import cache

    app = make_app()
    client = signed_in(app, "ada@example.org")
    first, second = _stored_pair(app, client, "a = 1\nb = 2\n", "a = 1\nb = 3\n")
    html = client.get("/exercises/add-numbers/history").get_data(as_text=True)
    assert '<span class="diff-add">+b = 3</span>' in html
    assert (first, second) in cache._found


def test_a_diff_of_too_many_rows_is_not_rendered(make_app) -> None:
    app = make_app(DIFF_MAX_ROWS=10)
    client = signed_in(app, "ada@example.org")
    _stored_pair(app, client, "".join(f"a{i}\n" for i in range(8)),
                 "".join(f"b{i}\n" for i in range(8)))  # 8 deleted + 8 added rows, 1 hunk
    assert "The diff is too large" in client.get("/exercises/add-numbers/history").get_data(
        as_text=True)
