"""Identity: look-alike emails are one account, invisible and mixed-script emails are refused,
/register answers the same whether or not the email exists, weak passwords are refused."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.accounts.lookalikes import skeleton
from app.accounts.passwords import password_problem
from app.extensions import db
from app.models import User
from tests.app.accounts_helpers import PASSWORD, csrf_of, login, make_user

CYRILLIC_ACE = "\u0430\u0441\u0435@example.org"  # а с е: every letter Cyrillic, one script


def sign_up(client, email: str, password: str = PASSWORD):
    token = csrf_of(client.get("/register").get_data(as_text=True))
    return client.post("/register", data={"csrf_token": token, "email": email,
                                           "password": password, "confirm": password})


def accounts(app) -> int:
    with app.app_context():
        found: int = db.session.scalar(select(func.count()).select_from(User))
        db.session.remove()
        return found


def test_a_whole_word_in_look_alike_letters_is_the_same_account(app):
    make_user(app, "ace@example.org")
    assert skeleton(CYRILLIC_ACE) == "ace@example.org"
    assert sign_up(app.test_client(), CYRILLIC_ACE).status_code == 302  # as for a new email
    assert accounts(app) == 1
    client = app.test_client()
    assert login(client, CYRILLIC_ACE).status_code == 302  # the look-alike logs into ace's account
    assert "ace@example.org" in client.get("/progress").get_data(as_text=True)


@pytest.mark.parametrize("lang, words", [("en", "mixes alphabets"), ("ja", "文字体系")])
def test_mixed_scripts_in_an_email_are_refused(app, lang, words):
    client = app.test_client()
    client.set_cookie("lang", lang)
    for email in ("\u0430da@example.org", "ad\u03b1@example.org", "ada@ex\u0430mple.org"):
        response = sign_up(client, email)
        assert response.status_code == 400 and words in response.get_data(as_text=True), email
    assert accounts(app) == 0


@pytest.mark.parametrize("char", ["\u034f", "\u3164", "\u115f", "\u2800", "\ufe0f", "\u200b",
                                  "\u180e", "\U000e0041"])
def test_invisible_characters_the_docs_name_are_refused(app, char):
    make_user(app, "ada@example.org")
    for email in (f"a{char}da@example.org", f"ada{char}@example.org"):
        response = sign_up(app.test_client(), email)
        assert response.status_code == 400, repr(email)
        assert "cannot be seen" in response.get_data(as_text=True)
        assert login(app.test_client(), email).status_code == 400  # finds no account
    assert accounts(app) == 1


def test_scripts_written_together_are_not_mixed_scripts(app):
    for email in ("たなかタロウ太郎@example.jp", "yuki.たなか@example.jp", "김민준@example.kr",
                  "ivan.petrov@example.org", "иван@example.ru", "jose\u0301@example.org"):
        assert sign_up(app.test_client(), email).status_code == 302, email
    assert accounts(app) == 6


def test_register_answers_the_same_whether_or_not_the_email_exists(app):
    make_user(app, "ada@example.org")
    answers = []
    for email in ("ada@example.org", "bob@example.org"):
        client = app.test_client()
        response = sign_up(client, email)
        follow = client.get(response.headers["Location"])
        answers.append((response.status_code, response.headers["Location"],
                        follow.status_code, follow.get_data(as_text=True).replace(email, "")
                        .split('name="csrf_token"')[0]))
    assert answers[0] == answers[1]
    assert accounts(app) == 2


COMMON = ["qwerty123456", "trustno1!", "password1", "iloveyou1", "letmein123", "football1",
          "monkey123", "dragon2024", "abc123456", "Passw0rd!", "sunshine1", "princess1",
          "qwertyuiop", "1q2w3e4r5t", "zaq12wsx", "baseball1", "welcome1", "superman1",
          "michael1", "shadow123", "master123", "jennifer1", "123qweasd"]


@pytest.mark.parametrize("password", COMMON)
def test_common_passwords_are_refused(password):
    assert password_problem(password, "ada@example.org") in ("common", "weak")


def test_strong_passwords_pass_and_the_refusal_is_explained_in_both_languages(app):
    for password in ("correct horse battery", "unusual purple kettle song", "Tq8#vL2m!pR9"):
        assert password_problem(password, "ada@example.org") is None, password
    client = app.test_client()
    assert "easy to guess" in sign_up(client, "eve@example.org", "qwerty123456").get_data(as_text=True)
    client.set_cookie("lang", "ja")
    assert "推測されやすい" in sign_up(client, "eve@example.org", "trustno1!").get_data(as_text=True)
    assert accounts(app) == 0
