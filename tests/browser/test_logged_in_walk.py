"""A logged-in learner clicks through every kind of page in a real browser, in English and in
Japanese: lessons, an exercise (draft and submission), its history, a quiz answered by
clicking, the dashboard, the password page. No response may be a server error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.loader import load_exercise
from grader.quiz import key_answers

REPO = Path(__file__).resolve().parents[2]
EXERCISE = "tensors-dtype-memory"  # lesson 1, no GPU, graded in seconds
UNTRIED = "tensors-broadcast"  # its history is opened before any submission
QUIZ = "quiz-tensors"
GRADING_TIMEOUT_MS = 180_000
EMAIL, PASSWORD = "walker@example.org", "a long walk in the park"

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def answer_everything(page) -> None:
    """Pick the first choice of every question and type 32 into every number field."""
    for field in page.locator("input[type='radio']").all():
        name = field.get_attribute("name")
        page.locator(f"input[name='{name}']").first.check()
    for field in page.locator("input[type='checkbox']").all()[:1]:
        field.check()
    for field in page.locator("input[inputmode='decimal'], input[type='number'], "
                              "input[type='text']").all():
        field.fill("32")


def test_logged_in_learner_walks_every_page_in_both_languages(browser, live_server):
    exercise = load_exercise(REPO / "exercises" / EXERCISE)
    load_exercise(REPO / "exercises" / QUIZ)  # present, or the walk below is meaningless
    assert key_answers(load_exercise(REPO / "exercises" / QUIZ))
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 500
            else None)
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(live_server + "/register")
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Create my account").click()
    page.wait_for_url(re.compile(r".*/login(\?.*)?$"))  # signing up never logs in by itself
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r".*/progress$"))

    # Work to show on every page: a graded submission, a draft, a quiz attempt.
    page.goto(f"{live_server}/exercises/{EXERCISE}")
    page.wait_for_selector(".cm-editor .cm-content")
    page.evaluate("code => window.laipEditor.setCode(code)", exercise.starter + "\n# tried\n")
    page.get_by_role("button", name="Submit").click()
    page.wait_for_selector(".verdict", timeout=GRADING_TIMEOUT_MS)

    for lang in ("en", "ja"):
        page.goto(f"{live_server}/lang/{lang}?next=/")
        assert page.locator("html").get_attribute("lang") == lang
        for link in sorted(set(page.locator("a[href^='/lessons/']").evaluate_all(
                "links => links.map(a => a.getAttribute('href'))"))):
            page.goto(live_server + link)
        for path in (f"/exercises/{EXERCISE}", f"/exercises/{EXERCISE}/history",
                     f"/exercises/{UNTRIED}/history", "/progress", "/account/password"):
            page.goto(live_server + path)
            assert page.locator("main, .site-header").first.is_visible(), path
        page.goto(f"{live_server}/exercises/{EXERCISE}/history")
        page.locator(".history-item a").first.click()  # one submission's own page
        page.wait_for_url(re.compile(r".*/submissions/[0-9a-f-]+$"))
        page.goto(f"{live_server}/quizzes/{QUIZ}")
        answer_everything(page)
        page.locator("form button[type='submit']").last.click()
        page.wait_for_url(re.compile(rf".*/quizzes/{QUIZ}\?attempt=.*"))
        assert page.locator("#result").is_visible()

    page.goto(live_server + "/progress")
    page.locator(".site-header form button").click()  # log out (every session of the account)
    page.wait_for_url(live_server + "/")
    assert page.locator(".site-header .who").count() == 0
    context.close()
    assert errors == []
