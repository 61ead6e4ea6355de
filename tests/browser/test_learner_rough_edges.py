"""Issue 34's items 1-3 in a real browser: the header after a pass that follows a failure, the
focus after "More help" and after a quiz is checked, and a phone's Run output and restore."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.progress import drafts
from grader.loader import load_exercises
from tests.browser.layout_helpers import (
    CODE_EXERCISE, DESKTOP, MOBILE, add_submission, log_in, make_account,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
GRADING_TIMEOUT_MS = 180_000
ACTIVE = "() => { const a = document.activeElement; return a === document.body ? 'body' : a.className || a.tagName; }"


def _exercise():
    return load_exercises(REPO / "exercises").exercises[CODE_EXERCISE]


def test_a_pass_after_a_failure_updates_the_header_and_drops_the_draft_note(browser, live_app):
    """Item 1: "SOLVED · Best score 25%" beside "Score: 100%" until a reload; the restored-draft note stayed."""
    app, base = live_app
    _, key = make_account(app, "after-pass@example.org")
    add_submission(app, key, verdict="fail")  # best score 25 %
    exercise = _exercise()
    with app.app_context():
        drafts.save(exercise, key, exercise.starter + "\n# my draft\n")
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in(page, base, "after-pass@example.org")
    page.goto(f"{base}/exercises/{CODE_EXERCISE}")
    page.wait_for_selector("#results .verdict.fail")
    assert page.locator(".best-score").inner_text().endswith("25%")
    assert page.locator("#draft-note").is_visible()
    page.evaluate("code => window.laipEditor.setCode(code)", exercise.solution_path.read_text(encoding="utf-8"))
    page.click("#submit-button")
    page.wait_for_selector("#results .verdict.pass", timeout=GRADING_TIMEOUT_MS)
    assert page.locator("#exercise-state .state.solved").count() == 1
    assert page.locator(".best-score").inner_text().endswith("100%")
    assert page.locator("#draft-note").is_hidden()
    page.context.close()


@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_more_help_keeps_the_focus_then_hands_it_to_the_last_rung(browser, live_app, viewport):
    """Item 2: "More help" once dropped the focus to <body> (a disabled button loses it)."""
    app, base = live_app
    email = f"focus-{viewport['width']}@example.org"
    _, key = make_account(app, email)
    add_submission(app, key)  # its distances-shape check failed
    page = browser.new_context(viewport=viewport).new_page()
    log_in(page, base, email)
    page.goto(f"{base}/exercises/{CODE_EXERCISE}")
    card = page.locator('.test[data-check="distances-shape"]')
    more = card.locator("button.hint-more")
    more.focus()
    page.keyboard.press("Enter")
    card.locator(".hint-rung.hint-concept").wait_for()
    assert page.evaluate(ACTIVE) == "hint-more"
    page.keyboard.press("Enter")
    card.locator(".hint-rung.hint-api").wait_for()
    page.wait_for_function("() => !document.querySelector('button.hint-more')")
    assert "hint-api" in page.evaluate(ACTIVE)
    page.context.close()


def test_a_checked_quiz_puts_the_focus_on_its_result(browser, live_server):
    """Item 2: after a quiz was checked, the focus stayed on <body>."""
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(f"{live_server}/quizzes/quiz-tensors")
    page.locator(".question input").first.check()
    page.click(".quiz-form button[type=submit]")
    page.wait_for_selector("#result")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'result'")
    # An empty check is refused: the focus is on the message saying so.
    page.goto(f"{live_server}/quizzes/quiz-tensors")
    page.click(".quiz-form button[type=submit]")
    page.wait_for_function("() => document.activeElement && document.activeElement.classList.contains('quiz-error')")
    page.context.close()


def test_on_a_phone_run_output_and_a_restore_come_into_view(browser, live_app):
    """Item 3: Run's output opened 1,101 px below the fold; restore landed 1,300 px above the editor."""
    app, base = live_app
    _, key = make_account(app, "phone@example.org")
    old = add_submission(app, key, verdict="fail")
    page = browser.new_context(viewport=MOBILE).new_page()
    log_in(page, base, "phone@example.org")
    page.goto(f"{base}/exercises/{CODE_EXERCISE}?restore={old}")
    page.wait_for_selector("#results .verdict")
    top = page.evaluate("() => document.getElementById('draft-note').getBoundingClientRect().top")
    assert 0 <= top < MOBILE["height"] / 2, top
    page.goto(f"{base}/exercises/{CODE_EXERCISE}")
    page.wait_for_selector("#results .verdict")
    page.evaluate("() => window.laipEditor.setCode('print(42)')")
    page.click("#run-button")
    page.wait_for_selector("#run-panel[data-state=ok]", timeout=GRADING_TIMEOUT_MS)
    box = page.evaluate("() => { const b = document.getElementById('run-panel').getBoundingClientRect(); return [b.top, b.bottom]; }")
    assert box[0] < MOBILE["height"] and box[1] > 0, box
    page.context.close()
