"""A keyboard-only walk (issue 34): reach the editor, leave it, submit, read the verdict, open each
hint rung, take a quiz and restore a submission, with the Tab, Enter, Space and Escape keys only.
The grading is real (the local sandbox)."""

from __future__ import annotations

import pytest

from tests.browser.layout_helpers import CODE_EXERCISE, DESKTOP, QUIZ, add_submission, log_in, make_account

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GRADING_TIMEOUT_MS = 180_000
MISTAKE = "import torch\n\n\ndef pairwise_sq_distances(a, b):\n    return (a - b).sum(dim=-1)\n"


def tab_to(page, selector: str, *, back: bool = False, limit: int = 120) -> None:
    """Press Tab (Shift+Tab) until the focus is on an element matching selector; in the editor,
    where Tab indents, Escape first (as its note says)."""
    for _ in range(limit):
        if page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
        if page.evaluate("() => !!document.activeElement.closest('.cm-editor')"):
            page.keyboard.press("Escape")
        page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"{selector} not reached with the keyboard in {limit} presses")


def focused(page) -> str:
    return page.evaluate("() => document.activeElement.outerHTML.slice(0, 120)")


def test_the_whole_walk_with_the_keyboard_only(browser, live_app):
    app, base = live_app
    _, key = make_account(app, "keys@example.org")
    older = add_submission(app, key, verdict="fail", minutes_ago=60, code=MISTAKE + "# an older try\n")
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in(page, base, "keys@example.org")
    page.goto(f"{base}/exercises/{CODE_EXERCISE}")
    page.wait_for_selector("#workbench.editor-ready")

    # Reach the editor: the skip link is the first stop and lands in the editor itself.
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.matches('a[data-to-editor]')"), focused(page)
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.classList.contains('cm-content')"), focused(page)
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(MISTAKE)

    # Leave it: Tab indents there, Escape then Tab moves on (a first Escape closes an open
    # completion list, as typing may have opened one).
    page.wait_for_timeout(300)  # the completion list opens a moment after typing
    if page.locator(".cm-tooltip-autocomplete").count():
        page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert not page.evaluate("() => !!document.activeElement.closest('.cm-editor')"), focused(page)

    # Submit with the button, and read the verdict.
    tab_to(page, "#submit-button", back=True)
    page.keyboard.press("Enter")
    page.wait_for_selector("#results .verdict.fail", timeout=GRADING_TIMEOUT_MS)
    assert page.locator("#results .verdict").inner_text()

    # Open each rung of the first ladder: the focus stays on the button, then goes to the last rung.
    tab_to(page, "#results button.hint-more")
    check = page.evaluate("() => document.activeElement.dataset.check")
    card = page.locator(f'#results .test[data-check="{check}"]')
    for _ in range(4):
        if not page.evaluate("() => document.activeElement.matches('button.hint-more')"):
            break
        count = card.locator(".hint-rung").count()
        page.keyboard.press("Enter")
        card.locator(".hint-rung").nth(count).wait_for()
    assert card.locator(".hint-rung").count() == 2
    assert page.evaluate("() => document.activeElement.classList.contains('hint-rung')"), focused(page)

    # Take a quiz: Space picks an answer, Enter checks, and the focus lands on the result.
    page.goto(f"{base}/quizzes/{QUIZ}")
    tab_to(page, ".question input")
    page.keyboard.press("Space")
    tab_to(page, ".quiz-form button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#result")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'result'")

    # Restore a submission from the history: its code is in the editor, the note in view.
    page.goto(f"{base}/exercises/{CODE_EXERCISE}/history")
    entry = f'.history-item[data-submission="{older}"]'
    tab_to(page, f"{entry} summary")
    page.keyboard.press("Enter")  # opens the entry; its feedback and code are fetched
    page.wait_for_selector(f"{entry} a.restore-link")
    tab_to(page, f"{entry} a.restore-link")
    page.keyboard.press("Enter")
    page.wait_for_selector("#results .verdict")
    assert "# an older try" in page.evaluate("() => window.laipEditor.getCode()")
    assert page.locator("#draft-note").is_visible()
    page.context.close()
