"""Instructors are told, on every instructor page and at start, when grading is not isolated."""

from __future__ import annotations

import logging

import pytest

from app.grading.queue import warn_if_not_isolated
from grader.sandboxes import jail
from tests.app.accounts_helpers import signed_in

NOTICE = 'data-sandbox="not-isolated"'


@pytest.fixture
def app(make_app):
    return make_app(GRADER_SANDBOX="local")


def test_instructor_pages_say_the_sandbox_is_not_isolated_when_the_jail_is_off(app, monkeypatch):
    monkeypatch.setenv("GRADER_JAIL", "0")
    teacher = signed_in(app, "teach@example.org", role="instructor")
    for page in ("/instructor/", "/instructor/learners", "/instructor/validation"):
        body = teacher.get(page).get_data(as_text=True)
        assert NOTICE in body and "is not isolated" in body, page
    teacher.set_cookie("lang", "ja")
    assert "隔離されていません" in teacher.get("/instructor/").get_data(as_text=True)


@pytest.mark.skipif(not jail.support().isolated, reason=jail.support().describe())
def test_no_notice_where_the_jail_isolates(app, monkeypatch):
    monkeypatch.setenv("GRADER_JAIL", "auto")
    teacher = signed_in(app, "teach@example.org", role="instructor")
    assert NOTICE not in teacher.get("/instructor/").get_data(as_text=True)


def test_the_server_warns_at_start_when_not_isolated(app, monkeypatch, caplog):
    monkeypatch.setenv("GRADER_JAIL", "0")
    with caplog.at_level(logging.WARNING, logger="app.grading.queue"):
        assert warn_if_not_isolated(app) is False
    assert "NOT ISOLATED" in caplog.text
