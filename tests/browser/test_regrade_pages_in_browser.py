"""The regrade report and the learner's note at 390 and 1280 px in en and ja: changed verdicts first,
nothing wider than the window, the note in the learner's language on the submission's page, in its
history and in the editor's results panel (on return to the exercise, and on reopening it)."""

from __future__ import annotations

import pytest

from tests.browser.layout_helpers import (
    CODE_EXERCISE,
    DESKTOP,
    MOBILE,
    add_submission,
    log_in,
    make_account,
    overflow,
)
from tests.browser.regrade_helpers import NOTE, UNDER_WAY, finished_run, run_under_way

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def signed_in(browser, viewport, base: str, email: str, lang: str):
    """A new browser window of this size, logged in, reading pages in `lang`."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    log_in(page, base, email)
    if lang == "ja":
        page.goto(base + "/lang/ja?next=/")
    return context, page


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_the_report_and_the_learner_s_note(browser, live_app, viewport, lang):
    app, base = live_app
    _, same = make_account(app, "same@example.org")
    _, fixed = make_account(app, "a-learner-with-a-rather-long-address@example.org")
    unchanged = add_submission(app, same, verdict="fail")
    changed = add_submission(app, fixed, verdict="fail")
    finished_run(app, changed, unchanged)
    make_account(app, "teach@example.org", role="instructor")

    context, page = signed_in(browser, viewport, base, "teach@example.org", lang)
    page.goto(f"{base}/instructor/exercises/{CODE_EXERCISE}")
    page.locator("#regrade").scroll_into_view_if_needed()
    assert page.locator(".regrade-form button[type=submit]").is_visible()
    page.goto(f"{base}/instructor/exercises/{CODE_EXERCISE}/regrade")
    rows = page.locator("table.regrade-rows tbody tr")
    assert rows.count() == 2
    first = rows.nth(0)
    assert first.get_attribute("data-submission") == changed and "verdict-changed" in first.get_attribute("class")
    assert "60%" in first.inner_text() and "100%" in first.inner_text()
    assert overflow(page) == 0
    page.screenshot(path=f"/tmp/regrade-report-{lang}-{viewport['width']}.png", full_page=True)
    context.close()

    context, page = signed_in(browser, viewport, base, "a-learner-with-a-rather-long-address@example.org", lang)
    page.goto(f"{base}/submissions/{changed}")
    note = page.locator(".regraded-note")
    assert NOTE[lang] in note.inner_text() and note.is_visible()
    assert overflow(page) == 0
    page.goto(f"{base}/exercises/{CODE_EXERCISE}/history")
    assert NOTE[lang] in page.locator(".history-item").first.locator(".regraded-note").inner_text()
    assert overflow(page) == 0
    page.screenshot(path=f"/tmp/regrade-note-{lang}-{viewport['width']}.png", full_page=True)
    for address in (f"/exercises/{CODE_EXERCISE}", f"/exercises/{CODE_EXERCISE}?restore={changed}"):
        page.goto(base + address)
        in_panel = page.locator("#results .results-panel .regraded-note")
        in_panel.wait_for()
        assert NOTE[lang] in in_panel.inner_text()
        in_panel.scroll_into_view_if_needed()
        assert in_panel.is_visible() and overflow(page) == 0
    page.screenshot(path=f"/tmp/regrade-editor-{lang}-{viewport['width']}.png")
    context.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_the_report_of_a_run_under_way(browser, live_app, viewport, lang):
    app, base = live_app
    learners = [make_account(app, f"learner-{n}-with-a-rather-long-address@example.org")[1] for n in range(3)]
    changed, kept, waiting = (add_submission(app, learner, verdict="fail") for learner in learners)
    run_under_way(app, changed, kept, waiting)
    make_account(app, "teach@example.org", role="instructor")

    context, page = signed_in(browser, viewport, base, "teach@example.org", lang)
    page.goto(f"{base}/instructor/exercises/{CODE_EXERCISE}/regrade")
    progress, kept_text, waiting_text = UNDER_WAY[lang]
    assert progress in page.locator("#regrade-progress").inner_text()
    assert page.locator('meta[http-equiv="refresh"]').count() == 1  # it follows the run by itself
    assert page.locator(".regrade-form").count() == 0  # no second run while this one is under way
    rows = page.locator("table.regrade-rows tbody tr")
    assert [rows.nth(i).get_attribute("data-submission") for i in range(3)] == [changed, kept, waiting]
    assert kept_text in rows.nth(1).inner_text() and waiting_text in rows.nth(2).inner_text()
    assert overflow(page) == 0
    # The caption's words are in the window, not centred over the scrolled table's hidden part.
    caption_right = page.evaluate("""() => { const range = document.createRange();
        range.selectNodeContents(document.querySelector('table.regrade-rows caption'));
        return range.getBoundingClientRect().right; }""")
    assert caption_right <= viewport["width"]
    page.screenshot(path=f"/tmp/regrade-under-way-{lang}-{viewport['width']}.png", full_page=True)
    context.close()
