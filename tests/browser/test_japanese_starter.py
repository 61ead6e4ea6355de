"""The starter's comments are in the interface's language (issue 25, item 4): starter.ja.py in the ja
editor, starter.py in en, and Reset puts back the starter of that language, at 390 and 1280 px."""

from __future__ import annotations

import pytest

from tests.browser.layout_helpers import CODE_EXERCISE, DESKTOP, MOBILE, open_editor

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TODO = {"en": "# TODO: replace these loops with one broadcast expression.",
        "ja": "# TODO: これらのループを 1 つのブロードキャスト式に置き換える。"}


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_the_starter_speaks_the_interfaces_language(browser, live_server, viewport, lang):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    open_editor(page, live_server, CODE_EXERCISE, lang)
    code = page.evaluate("() => window.laipEditor.getCode()")
    other = "ja" if lang == "en" else "en"
    assert TODO[lang] in code and TODO[other] not in code
    assert TODO[lang] in page.locator(".cm-content").inner_text()  # what the learner sees
    page.evaluate("() => window.laipEditor.setCode('x = 1\\n')")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#reset-button").click()
    assert TODO[lang] in page.evaluate("() => window.laipEditor.getCode()")
    context.close()
