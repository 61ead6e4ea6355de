"""Empty code in a real browser (issue 25): the card says to write the function and points at line 1,
in the page's language, at a phone's and a desktop's width; no AttributeError."""

from __future__ import annotations

import pytest

from tests.browser.layout_helpers import CODE_EXERCISE, DESKTOP, MOBILE, open_editor

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WORDS = {"en": ("Your code is empty: write the function `pairwise_sq_distances`", "line 1"),
         "ja": ("コードが空です。問題文で求められている関数 `pairwise_sq_distances`", "行 1")}  # the line button


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_empty_code_is_told_what_to_write(browser, live_server, viewport, lang):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    open_editor(page, live_server, CODE_EXERCISE, lang)
    page.evaluate("() => window.laipEditor.setCode('')")
    page.locator("#submit-button").click()
    card = page.locator('.test[data-check="distances-shape"]')
    card.wait_for(timeout=240_000)
    message = card.locator(".test-message").inner_text()
    assert message.startswith(WORDS[lang][0].replace("`", "")), message
    assert "AttributeError" not in page.locator("#results").inner_text()
    assert card.locator(".line-link").inner_text() == WORDS[lang][1]
    context.close()
