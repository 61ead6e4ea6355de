"""An account in a real browser: sign up, solve an exercise, come back elsewhere, find it all."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.loader import load_exercises

REPO = Path(__file__).resolve().parents[2]
EXERCISE = "tensors-dtype-memory"  # lesson 1, no GPU, graded in seconds
GRADING_TIMEOUT_MS = 180_000
EMAIL, PASSWORD = "ada@example.org", "correct horse battery"

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def watch(page, problems: list[str]) -> None:
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))


def test_progress_and_draft_follow_the_account(browser, live_server):
    exercise = load_exercises(REPO / "exercises").exercises.get(EXERCISE)
    if exercise is None:
        pytest.skip(f"browser test skipped: exercises/{EXERCISE} is missing")
    solution = exercise.solution_path.read_text(encoding="utf-8")
    draft = solution + "\n# next: try float16 too\n"
    problems: list[str] = []

    # First device: sign up from the header, solve the exercise, leave a draft.
    first = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = first.new_page()
    watch(page, problems)
    page.goto(live_server + "/")
    page.get_by_role("link", name="Sign up").click()
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Create my account").click()
    # Signing up answers the same for a taken email, so it never logs in: the login form next.
    page.wait_for_url(re.compile(r".*/login\?next=.*"))
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(live_server + "/")  # back to the page the learner signed up from
    assert page.locator(".site-header .who").inner_text() == EMAIL

    page.goto(f"{live_server}/exercises/{EXERCISE}")
    page.wait_for_selector(".cm-editor .cm-content")
    page.evaluate("code => window.laipEditor.setCode(code)", solution)
    page.get_by_role("button", name="Submit").click()
    page.wait_for_selector(".verdict.pass", timeout=GRADING_TIMEOUT_MS)

    def draft_saved(response) -> bool:
        return response.url.endswith(f"/api/exercises/{EXERCISE}/draft") \
            and response.request.method == "PUT"

    with page.expect_response(draft_saved, timeout=10_000) as saved:
        page.evaluate("code => window.laipEditor.setCode(code)", draft)  # saved after a pause
    assert saved.value.ok
    first.close()

    # Second device: nothing in its localStorage; log in and find the progress and the draft.
    second = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = second.new_page()
    watch(page, problems)
    page.goto(f"{live_server}/login")
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/progress")
    row = page.locator(f"tr[data-exercise='{EXERCISE}']")
    assert row.get_attribute("data-state") == "solved"
    assert "100%" in row.inner_text()

    row.get_by_role("link", name="History").click()
    assert page.locator(".history-item .verdict-badge.pass").count() == 1

    page.goto(f"{live_server}/exercises/{EXERCISE}")
    page.wait_for_selector(".cm-editor .cm-content")
    assert page.evaluate("window.laipEditor.getCode()") == draft
    assert page.locator("#draft-note").is_visible()

    # Logging out leaves a new anonymous learner who sees neither the draft nor the progress.
    page.get_by_role("button", name="Log out").click()
    page.goto(f"{live_server}/exercises/{EXERCISE}")
    page.wait_for_selector(".cm-editor .cm-content")
    assert page.evaluate("window.laipEditor.getCode()") == exercise.starter
    page.goto(f"{live_server}/progress")
    assert page.locator(f"tr[data-exercise='{EXERCISE}']").get_attribute("data-state") \
        == "not_started"
    second.close()
    assert problems == []  # no script errors, no CSP violations
