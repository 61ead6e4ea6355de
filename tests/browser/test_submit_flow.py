"""A learner's path in a real browser: lesson 3, the AMP exercise, a pass then a fail."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.loader import load_exercises

REPO = Path(__file__).resolve().parents[2]
# UPDATE_SCREENSHOT=1 refreshes the README picture; by default nothing is written in the repo.
SCREENSHOT = REPO / "docs" / "screenshot-exercise.png"
EXERCISE = "amp-train-one-epoch"
GRADING_TIMEOUT_MS = 180_000  # grading imports torch in a child process: seconds, not minutes

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_submit_solution_then_starter(browser, live_server):
    exercise = load_exercises(REPO / "exercises").exercises.get(EXERCISE)
    if exercise is None:
        pytest.skip(f"browser test skipped: exercises/{EXERCISE} is missing")
    solution = exercise.solution_path.read_text(encoding="utf-8")

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: dialog.accept())  # the reset confirmation

    page.goto(live_server + "/")
    page.locator("a[href^='/lessons/03-']").first.click()
    page.locator(f"a[href='/exercises/{EXERCISE}']").first.click()
    page.wait_for_selector(".cm-editor .cm-content")
    assert page.evaluate("window.laipEditor.getCode()") == exercise.starter

    # Learner output that looks like HTML must stay text.
    marked = solution + '\nprint("<b id=\'injected\'>hello</b>")\n'
    page.evaluate("code => window.laipEditor.setCode(code)", marked)
    page.get_by_role("button", name="Submit").click()
    page.wait_for_selector(".verdict.pass", timeout=GRADING_TIMEOUT_MS)
    assert page.locator("#progress").get_attribute("data-status") == "done"
    assert page.locator(".test.fail, .test.error").count() == 0
    assert page.locator(".test.pass").count() >= 1
    assert page.locator("#injected").count() == 0
    assert "<b id='injected'>hello</b>" in page.locator("#results .output pre").text_content()

    # The draft survives a reload; reset brings the starter back and forgets the draft.
    page.reload()
    page.wait_for_selector(".cm-editor .cm-content")
    assert page.evaluate("window.laipEditor.getCode()") == marked
    assert page.locator("#draft-note").is_visible()
    page.get_by_role("button", name="Reset to starter").click()
    assert page.evaluate("window.laipEditor.getCode()") == exercise.starter
    page.wait_for_timeout(600)  # longer than the editor's autosave pause
    local_draft = ("id => localStorage.getItem('laip:draft:'"
                   " + document.getElementById('workbench').dataset.draftScope + ':' + id)")
    assert page.evaluate(local_draft, EXERCISE) is None
    page.locator(".cm-content").click()
    page.keyboard.press("Control+Enter")  # the shortcut submits too
    page.wait_for_selector(".verdict.fail, .verdict.error", timeout=GRADING_TIMEOUT_MS)
    failing = page.locator(".test.fail")
    assert failing.count() >= 1
    assert failing.first.locator(".test-message").inner_text().strip()
    assert page.locator(".cm-failing-line").count() >= 1

    if os.environ.get("UPDATE_SCREENSHOT"):
        page.screenshot(path=str(SCREENSHOT), full_page=True)
    assert problems == []  # no script errors, no CSP violations
    context.close()
