"""Restoring an earlier submission shows that submission's own feedback, says which one the panel
shows, and leads back to the latest result (issue 25, item 10), at 390 and 1280 px in en and ja."""

from __future__ import annotations

import pytest

from tests.browser.layout_helpers import CODE_EXERCISE, DESKTOP, MOBILE, add_submission, log_in, make_account

pytestmark = [pytest.mark.browser, pytest.mark.slow]

OLD_CODE = "import torch\n\n\ndef pairwise_sq_distances(a, b):\n    return a - b  # the failing attempt\n"
WORDS = {"en": ("Feedback of your submission from", "Show my latest result", "Your last submission:"),
         "ja": ("の提出へのフィードバック", "最新の結果を表示", "前回の提出:")}


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_a_restored_submission_shows_its_own_feedback(browser, live_app, viewport, lang):
    app, base = live_app
    email = f"restore-{lang}-{viewport['width']}@example.org"
    _, key = make_account(app, email)
    old = add_submission(app, key, verdict="fail", minutes_ago=30, code=OLD_CODE)
    latest = add_submission(app, key, verdict="pass", minutes_ago=5)
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    log_in(page, base, email)
    if lang == "ja":
        page.goto(base + "/lang/ja?next=/")
    page.goto(f"{base}/exercises/{CODE_EXERCISE}?restore={old}")
    page.wait_for_selector("#results .verdict")
    named, back, latest_words = WORDS[lang]
    assert page.evaluate("() => window.laipEditor.getCode()") == OLD_CODE
    # The failing submission's verdict beside its code, not the latest's pass.
    assert page.locator("#results .verdict.fail").count() == 1
    assert page.locator("#results .verdict.pass").count() == 0
    note = page.locator("#last-note")
    assert named in note.inner_text() and note.get_attribute("data-shows") == "restored"
    assert note.locator("a").get_attribute("href").endswith(f"/submissions/{old}")
    assert page.locator("#next-step").is_hidden()  # no "Next exercise" for a failing attempt
    # The way back: the latest result, named as such; the restored code stays in the editor.
    button = page.locator("#show-latest")
    assert button.inner_text() == back
    button.click()
    page.wait_for_selector("#results .verdict.pass")
    assert latest_words in note.inner_text() and note.get_attribute("data-shows") is None
    assert note.locator("a").get_attribute("href").endswith(f"/submissions/{latest}")
    assert page.evaluate("() => window.laipEditor.getCode()") == OLD_CODE
    context.close()


def test_restoring_the_latest_submission_offers_no_way_back_to_itself(browser, live_app):
    app, base = live_app
    _, key = make_account(app, "restore-latest@example.org")
    only = add_submission(app, key, verdict="fail", code=OLD_CODE)
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in(page, base, "restore-latest@example.org")
    page.goto(f"{base}/exercises/{CODE_EXERCISE}?restore={only}")
    page.wait_for_selector("#results .verdict.fail")
    assert "Feedback of your submission from" in page.locator("#last-note").inner_text()
    assert page.locator("#show-latest").count() == 0
