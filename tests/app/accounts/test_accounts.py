"""Accounts: sign up, log in, log out, CSRF on the forms, hashing, cookies, no enumeration."""

from __future__ import annotations

import re

from sqlalchemy import select

from app.extensions import db
from app.models import User
from tests.app.accounts_helpers import PASSWORD, csrf_of, login, logout, make_user, register


def user(app, email):
    with app.app_context():
        found = db.session.scalar(select(User).where(User.email == email))
        if found is not None:
            db.session.expunge(found)
        return found


def test_register_creates_a_learner_who_then_logs_in(app, client):
    response = register(client, "  Ada@Example.org ")
    assert response.status_code == 302 and response.headers["Location"] == "/login"
    stored = user(app, "ada@example.org")  # stored lower-case, without spaces
    assert stored.role == "learner"
    assert "Log out" not in client.get("/progress").get_data(as_text=True)
    assert login(client, "ada@example.org").status_code == 302
    page = client.get("/progress").get_data(as_text=True)
    assert "ada@example.org" in page and "Log out" in page


def test_passwords_are_hashed_with_scrypt(app, client):
    register(client, "ada@example.org")
    stored = user(app, "ada@example.org")
    assert stored.password_hash.startswith("scrypt:32768:8:1$")
    assert PASSWORD not in stored.password_hash


def test_register_refuses_a_taken_email_a_short_password_and_a_mismatch(app, client):
    make_user(app, "ada@example.org")
    before = user(app, "ada@example.org").password_hash
    taken, new = register(client, "ADA@example.org", "another pass phrase here"), register(
        app.test_client(), "new@example.org")
    # The same answer as for a new email (no enumeration), and nothing changed.
    assert (taken.status_code, taken.headers["Location"]) == (new.status_code, new.headers["Location"])
    assert client.get("/login").get_data(as_text=True).count("unless this email had one") == 1
    assert user(app, "ada@example.org").password_hash == before
    short = register(client, "bob@example.org", "short")
    assert short.status_code == 400 and "8 to 256 characters" in short.get_data(as_text=True)
    token = csrf_of(client.get("/register").get_data(as_text=True))
    mismatch = client.post("/register", data={"csrf_token": token, "email": "bob@example.org",
                                              "password": PASSWORD, "confirm": PASSWORD + "x"})
    assert mismatch.status_code == 400 and "passwords differ" in mismatch.get_data(as_text=True)
    assert user(app, "bob@example.org") is None


def test_login_and_logout(app):
    make_user(app, "ada@example.org")
    client = app.test_client()
    assert login(client, "ada@example.org").status_code == 302
    assert "ada@example.org" in client.get("/").get_data(as_text=True)
    assert logout(client).status_code == 302
    assert "ada@example.org" not in client.get("/").get_data(as_text=True)


def test_wrong_password_and_unknown_email_read_the_same(app, client):
    make_user(app, "ada@example.org")
    wrong = login(client, "ada@example.org", "not the password")
    unknown = login(client, "nobody@example.org", "not the password")
    assert wrong.status_code == unknown.status_code == 400

    def alert(response):
        return re.search(r'role="alert">([^<]*)<', response.get_data(as_text=True)).group(1)

    assert alert(wrong) == alert(unknown) == "The email or the password is not right."


def test_forms_without_a_csrf_token_change_nothing(app, client):
    make_user(app, "ada@example.org")
    response = client.post("/login", data={"email": "ada@example.org", "password": PASSWORD})
    assert response.status_code == 400
    assert "ada@example.org" not in client.get("/").get_data(as_text=True)
    client.post("/register", data={"email": "eve@example.org", "password": PASSWORD,
                                   "confirm": PASSWORD})
    assert user(app, "eve@example.org") is None
    login(client, "ada@example.org")
    client.post("/logout")  # no token: a cross-site logout does not work either
    assert "ada@example.org" in client.get("/").get_data(as_text=True)
    assert client.get("/logout").status_code == 405


def test_session_cookie_is_httponly_and_samesite_lax(app, client):
    response = register(client, "ada@example.org")
    cookie = next(c for c in response.headers.getlist("Set-Cookie") if c.startswith("session="))
    assert "session=" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_next_goes_back_to_a_page_of_this_site_only(app):
    make_user(app, "ada@example.org")
    client = app.test_client()
    token = csrf_of(client.get("/login").get_data(as_text=True))
    form = {"csrf_token": token, "email": "ada@example.org", "password": PASSWORD}
    response = client.post("/login?next=/lessons/01-python-basics/", data=form)
    assert response.headers["Location"] == "/lessons/01-python-basics/"
    logout(client)
    token = csrf_of(client.get("/login").get_data(as_text=True))
    form["csrf_token"] = token
    response = client.post("/login?next=https://evil.example/", data=form)
    assert response.headers["Location"] == "/"


def test_login_is_throttled_per_address_and_email(app, client):
    make_user(app, "ada@example.org")
    for _ in range(5):
        assert login(client, "ada@example.org", "guess").status_code == 400
    blocked = login(client, "ada@example.org", PASSWORD)  # even the right password waits
    assert blocked.status_code == 429
    assert "Too many login attempts" in blocked.get_data(as_text=True)
    assert "Retry-After" in blocked.headers
    other = login(client, "bob@example.org", "guess")  # another email is counted apart
    assert other.status_code == 400


def test_cli_creates_the_first_instructor_with_options(app):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["users", "create", "--instructor", "--email",
                                 "Teach@Example.org", "--password", PASSWORD])
    assert result.exit_code == 0, result.output
    assert "Created instructor teach@example.org." in result.output
    assert user(app, "teach@example.org").role == "instructor"
    again = runner.invoke(args=["users", "create", "--email", "teach@example.org",
                                "--password", PASSWORD])
    assert again.exit_code != 0 and "exists already" in again.output


def test_cli_prompts_for_email_and_hidden_password(app):
    result = app.test_cli_runner().invoke(
        args=["users", "create", "--instructor"],
        input=f"teach@example.org\n{PASSWORD}\n{PASSWORD}\n")
    assert result.exit_code == 0, result.output
    assert PASSWORD not in result.output  # hidden input is not echoed
    assert user(app, "teach@example.org").role == "instructor"


def test_cli_refuses_a_short_password(app):
    result = app.test_cli_runner().invoke(
        args=["users", "create", "--email", "a@example.org", "--password", "short"])
    assert result.exit_code != 0 and "8 to 256 characters" in result.output


def test_cli_sets_the_role_of_an_existing_account(app):
    make_user(app, "ada@example.org")
    runner = app.test_cli_runner()
    result = runner.invoke(args=["users", "set-role", "ADA@example.org", "instructor"])
    assert result.exit_code == 0 and "ada@example.org is now an instructor." in result.output
    assert user(app, "ada@example.org").role == "instructor"
    assert runner.invoke(args=["users", "set-role", "nobody@example.org", "learner"]).exit_code
    assert runner.invoke(args=["users", "set-role", "ada@example.org", "admin"]).exit_code
