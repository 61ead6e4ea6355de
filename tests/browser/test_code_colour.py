"""Syntax colour in stored code (issue 25, item 12): the history's code, opened on demand, and the
submission page, at 390 and 1280 px in en and ja; the served HTML stays one escaped block."""

from __future__ import annotations

import pytest

from tests.browser.layout_helpers import CODE_EXERCISE, DESKTOP, MOBILE, add_submission, log_in, make_account

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CODE = ('import torch\n\n\ndef pairwise_sq_distances(a, b):\n'
        '    """<b>not bold</b>"""\n    return (a - b) ** 2  # 2 < 3\n')


def colours(page, scope: str) -> dict[str, str]:
    """Token class -> its computed colour, for the spans in one code view."""
    return page.evaluate("""scope => Object.fromEntries([...document.querySelectorAll(scope + ' .code-text span')]
        .map(s => [s.className, getComputedStyle(s).color]))""", scope)


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_stored_code_is_coloured_and_stays_text(browser, live_app, viewport, lang):
    app, base = live_app
    email = f"colour-{lang}-{viewport['width']}@example.org"
    _, key = make_account(app, email)
    older = add_submission(app, key, minutes_ago=20, code=CODE)
    add_submission(app, key, minutes_ago=10, code=CODE + "x = 1\n")
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, base, email)
    if lang == "ja":
        page.goto(base + "/lang/ja?next=/")

    page.goto(f"{base}/submissions/{older}")
    page.wait_for_selector(".code-text code[data-coloured]")
    found = colours(page, "main")
    for token in ("tok-keyword", "tok-string", "tok-comment", "tok-number"):
        assert token in found, found
    assert len(set(found.values())) >= 4, found  # different kinds, different colours
    assert page.locator(".code-text code").inner_text() == CODE.rstrip("\n")  # the same text
    assert page.locator(".code-text b").count() == 0  # never read as markup

    page.goto(f"{base}/exercises/{CODE_EXERCISE}/history")
    # Opened as a reader does, without clicking the summary's link (its time) by chance.
    page.locator("details[data-code-url]").first.evaluate("details => { details.open = true; }")
    page.wait_for_selector("details[open] .code-text code[data-coloured]")
    assert "tok-keyword" in colours(page, "details[open]")
    assert errors == []
    context.close()


def test_the_served_html_carries_no_token_spans(browser, live_app):
    # The colour is the browser's work: the server's block has no per-token markup.
    app, base = live_app
    _, key = make_account(app, "plain@example.org")
    sub = add_submission(app, key, code=CODE)
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in(page, base, "plain@example.org")
    served = page.request.get(f"{base}/submissions/{sub}").text()
    assert "tok-" not in served and "&lt;b&gt;not bold&lt;/b&gt;" in served
