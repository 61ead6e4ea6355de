"""After Submit the verdict is in view (issue 25): on a phone it scrolls up and takes the focus; on a
desktop, where it is beside the editor, the focus stays. Checks skipped for one reason read as one card."""

from __future__ import annotations

import pytest

from tests.browser.layout_helpers import DESKTOP, MOBILE, open_editor

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EXERCISE = "amp-train-one-epoch"
GRADING_TIMEOUT_MS = 240_000
CRASHING = ("import torch\n\n\ndef train_one_epoch(model, loader, optimizer, criterion, scaler, device):\n"
            "    raise RuntimeError('stopped on purpose')\n")
GROUP_TITLE = {"en": "11 checks were not run", "ja": "11 件のチェックは実行されませんでした"}


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_the_verdict_comes_into_view_and_identical_skips_are_one_card(browser, live_server, viewport, lang):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    open_editor(page, live_server, EXERCISE, lang)
    page.evaluate("code => window.laipEditor.setCode(code)", CRASHING)
    page.locator("#submit-button").click()
    verdict = page.locator("#results .verdict")
    verdict.wait_for(timeout=GRADING_TIMEOUT_MS)
    page.wait_for_timeout(300)  # the scroll happens right after the result is drawn

    box = verdict.bounding_box()  # relative to the viewport
    assert -1 <= box["y"] and box["y"] + box["height"] <= viewport["height"] + 1, box  # sub-pixel scrolling
    focused_is_verdict = page.evaluate("() => document.activeElement?.classList.contains('verdict')")
    if viewport is MOBILE:
        assert focused_is_verdict  # a screen reader reads it; nothing was in sight before
    else:
        assert not focused_is_verdict  # in sight beside the editor: the focus is not taken

    # The eleven "Not checked: your function stopped ..." cards are one card that names them.
    group = page.locator(".test.skip-group")
    assert group.count() == 1
    assert group.locator(".test-title").inner_text() == GROUP_TITLE[lang]
    assert group.locator(".skip-members li").count() == 11
    assert page.locator(".test.skip:not(.skip-group)").count() == 2  # the two that wait for "runs"
    if viewport is MOBILE:
        height = page.evaluate("() => document.scrollingElement.scrollHeight")
        assert height < 3200, height  # a dozen identical cards made it 4,700 px
    assert problems == []
    context.close()
