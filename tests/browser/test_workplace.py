"""The exercise, history and submission pages in a real browser: the wait, the draft, the
last result, restoring old code, live updates and feedback in the learner's language."""

from __future__ import annotations

import json

import pytest

from tests.browser.layout_helpers import (
    CODE_EXERCISE,
    DESKTOP,
    MOBILE,
    add_submission,
    finish,
    log_in,
    make_account,
)

pytestmark = [pytest.mark.browser]

EDITOR = ".cm-editor .cm-content"


def open_exercise(page, base: str) -> None:
    page.goto(f"{base}/exercises/{CODE_EXERCISE}")
    page.wait_for_selector(EDITOR)


def code_of(page) -> str:
    return page.evaluate("() => window.laipEditor.getCode()")


def test_indicator_hidden_until_a_submission_and_after_a_refused_one(browser, live_server):
    page = browser.new_context(viewport=DESKTOP).new_page()
    open_exercise(page, live_server)
    assert not page.is_visible("#progress")
    page.evaluate("() => window.laipEditor.setCode('x = 1\\n'.repeat(40000))")  # over 64 KB: refused
    page.click("#submit-button")
    page.wait_for_selector(".verdict.error")
    assert not page.is_visible("#progress")
    assert page.inner_text("#submit-button") in ("Submit",)


def test_last_edit_survives_an_immediate_reload(browser, live_server):
    page = browser.new_context(viewport=DESKTOP).new_page()
    open_exercise(page, live_server)
    page.click(EDITOR)
    page.keyboard.press("Control+End")
    page.keyboard.type("# typed just before leaving")
    page.reload()  # well within the 400 ms pause the local save waits for
    page.wait_for_selector(EDITOR)
    assert code_of(page).endswith("# typed just before leaving")


def test_return_shows_last_result_solved_mark_and_next(browser, live_app):
    app, base = live_app
    _id, key = make_account(app, "back@example.org")
    add_submission(app, key, verdict="pass")
    page = browser.new_context(viewport=MOBILE).new_page()
    log_in(page, base, "back@example.org")
    open_exercise(page, base)
    page.wait_for_selector(".verdict.pass")
    assert page.is_visible("#last-note")
    assert page.inner_text("#exercise-state").strip().lower() == "solved"
    assert page.is_visible("#next-step a")  # the next exercise of the lesson
    assert not page.is_visible("#progress")
    # The score sits inside the verdict box, not beside it (it used to float out on a phone).
    box = page.locator(".verdict").bounding_box()
    score = page.locator(".verdict .score").bounding_box()
    assert box["x"] <= score["x"] and score["x"] + score["width"] <= box["x"] + box["width"] + 0.5
    assert box["y"] <= score["y"] and score["y"] + score["height"] <= box["y"] + box["height"] + 0.5


def test_japanese_feedback_names_checks_by_title_not_id(browser, live_app):
    app, base = live_app
    _id, key = make_account(app, "ja@example.org")
    add_submission(app, key, verdict="fail")
    page = browser.new_context(viewport=DESKTOP, locale="ja-JP").new_page()
    log_in(page, base, "ja@example.org")
    page.goto(f"{base}/lang/ja?next=/")
    open_exercise(page, base)
    skipped = page.locator('.test.skip[data-check="distances-values"] .test-message')
    skipped.wait_for()
    text = skipped.inner_text()
    assert "distances-shape" not in text and "depends on" not in text
    assert "pairwise_sq_distances returns shape (n, m)" in text
    # The history page says the same, and shows backticked code as code.
    page.goto(f"{base}/exercises/{CODE_EXERCISE}/history")
    history = page.locator(".test.skip .test-message").first.inner_text()
    assert "depends on" not in history and "pairwise_sq_distances" in history
    assert "`" not in page.locator(".test-hint").first.inner_text()
    assert page.locator(".test-hint code").count() >= 1


def test_restore_a_past_submission_into_the_editor(browser, live_app):
    app, base = live_app
    _id, key = make_account(app, "restore@example.org")
    add_submission(app, key, code="# the old attempt\nx = 42\n")
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in(page, base, "restore@example.org")
    page.goto(f"{base}/exercises/{CODE_EXERCISE}/history")
    assert page.locator(".code-view .code-lines").first.inner_text().split()[:2] == ["1", "2"]  # numbered lines
    page.click(".restore-link")
    page.wait_for_selector(EDITOR)
    assert code_of(page) == "# the old attempt\nx = 42\n"
    assert page.is_visible("#draft-note")
    assert "restore=" not in page.url  # a reload goes back to the draft, not the old code


@pytest.mark.parametrize("where", ["history", "submission"])
def test_waiting_pages_update_without_a_reload(browser, live_app, where):
    app, base = live_app
    _id, key = make_account(app, "wait@example.org")
    pending = add_submission(app, key, status="queued")
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in(page, base, "wait@example.org")
    page.goto(f"{base}/exercises/{CODE_EXERCISE}/history" if where == "history"
              else f"{base}/submissions/{pending}")
    page.wait_for_selector(".verdict-badge.pending")
    page.evaluate("() => { window.notReloaded = true; }")
    finish(app, pending, "pass")  # the grader's part, done by the test
    page.wait_for_selector(".verdict-badge.pass", timeout=15_000)
    assert page.evaluate("() => window.notReloaded === true")


def test_button_shows_queue_position_then_elapsed_seconds(browser, live_server):
    page = browser.new_context(viewport=DESKTOP).new_page()
    polls = {"n": 0}
    seen: list[str] = []

    def answer(route):
        # The first polls report what a busy server reports; later ones go to the real API.
        polls["n"] += 1
        sid = route.request.url.rsplit("/", 1)[-1]
        if polls.get("stuck") or polls["n"] <= 2:
            body = {"id": sid, "status": "queued", "queue_position": 3, "elapsed_s": None}
        elif polls["n"] <= 4:
            body = {"id": sid, "status": "running", "queue_position": None, "elapsed_s": 4.2}
        else:
            route.continue_()
            return
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route("**/api/submissions/*", answer)
    open_exercise(page, live_server)
    page.on("console", lambda msg: None)
    page.expose_function("seen", lambda text: seen.append(text))
    page.evaluate("""() => new MutationObserver(() => window.seen(
        document.getElementById('submit-button').textContent)).observe(
        document.getElementById('submit-button'), {childList: true, characterData: true, subtree: true})""")
    page.click("#submit-button")
    page.wait_for_selector(".verdict", timeout=180_000)
    assert any("3" in text and "line" in text for text in seen), seen
    assert any(text.startswith("Grading") and "4 s" in text for text in seen), seen
    assert page.inner_text("#submit-button") == "Submit"
    # A second submission starts from a clean strip: "Done" does not stay green.
    polls["stuck"] = True
    assert page.locator("#progress li.complete").count() == 3  # the first one is done
    # Click and look in the same tick: while the code is being sent, nothing is "done".
    still_done = page.evaluate("""() => {
        document.getElementById('submit-button').click();
        return document.querySelectorAll('#progress li.complete').length; }""")
    assert still_done == 0
    page.wait_for_function("() => document.getElementById('submit-button').textContent.includes('line')")
    assert page.locator("#progress li.complete").count() == 0
    assert page.locator("#progress li.active").get_attribute("data-step") == "queued"


def test_lesson_code_blocks_copy_and_dark_mode_follows_the_system(browser, live_server):
    context = browser.new_context(viewport=DESKTOP, color_scheme="dark")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server)
    page = context.new_page()
    page.goto(f"{live_server}/lessons/01-tensors/")
    blocks = page.locator("pre.highlight")
    assert blocks.count() > 0 and page.locator(".copy-button").count() == blocks.count()
    page.locator(".copy-button").first.click()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == blocks.first.inner_text()
    assert page.evaluate("() => getComputedStyle(document.body).backgroundColor") == "rgb(13, 17, 23)"
    code_bg = page.evaluate("() => getComputedStyle(document.querySelector('pre.highlight')).backgroundColor")
    assert code_bg == "rgb(22, 27, 34)"
    # The table of contents links to real anchors.
    first = page.locator(".toc a").first.get_attribute("href")
    assert page.locator(first).count() == 1
    context.close()
