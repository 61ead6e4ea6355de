"""Issue 25, item 12, at 390 and 1280 px in English and Japanese: the header's dark-mode toggle
(remembered, drawn by the server so nothing flashes, editor and diagrams themed too), the
editor's code size (remembered), Japanese line breaks that show no space, gzip for a client
that accepts only gzip."""

from __future__ import annotations

import re

import pytest

from tests.browser.layout_helpers import CODE_EXERCISE, DESKTOP, MOBILE, QUIZ, open_editor, overflow

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, MOBILE], ids=["desktop", "mobile"])
LANGS = pytest.mark.parametrize("lang", ["en", "ja"])
LIGHT_PAGE, DARK_PAGE = "rgb(245, 247, 250)", "rgb(13, 17, 23)"  # --wash in each theme
LIGHT_CODE, DARK_CODE = "rgb(246, 248, 250)", "rgb(22, 27, 34)"  # --code-wash
LESSON = "/lessons/03-mixed-precision/"


def _style(page, selector: str, prop: str) -> str:
    return page.evaluate("([s, p]) => getComputedStyle(document.querySelector(s))[p]", [selector, prop])


@VIEWPORTS
@LANGS
def test_dark_mode_toggle_themes_the_editor_and_is_remembered(browser, live_server, viewport, lang):
    context = browser.new_context(viewport=viewport, color_scheme="light")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_editor(page, live_server, CODE_EXERCISE, lang)
    toggle = page.locator("#theme-toggle")
    assert toggle.is_visible() and toggle.get_attribute("aria-pressed") == "false"
    assert toggle.get_attribute("title") == {
        "en": "Switch between light and dark colours", "ja": "明るい配色と暗い配色を切り替えます"}[lang]
    assert _style(page, "body", "backgroundColor") == LIGHT_PAGE
    assert _style(page, ".cm-editor", "backgroundColor") == LIGHT_CODE

    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    assert _style(page, "body", "backgroundColor") == DARK_PAGE
    # The editor follows: before, it stayed a white panel on the dark page.
    assert _style(page, ".cm-editor", "backgroundColor") == DARK_CODE
    assert _style(page, ".cm-gutters", "backgroundColor") == DARK_PAGE
    keyword = page.locator(".cm-content .k").first  # "import": the lesson code's dark palette
    assert keyword.evaluate("el => getComputedStyle(el).color") == "rgb(255, 123, 114)"
    assert overflow(page) <= 0
    assert any(c["name"] == "theme" and c["value"] == "dark" for c in context.cookies())

    # Remembered, and drawn by the server: the HTML itself says dark (no light first paint).
    html = context.request.get(f"{live_server}/exercises/{CODE_EXERCISE}").text()
    assert re.search(r'<html lang="[a-z]+" data-theme="dark">', html)
    page.goto(f"{live_server}{LESSON}")
    assert _style(page, "body", "backgroundColor") == DARK_PAGE
    assert page.locator("#theme-toggle").get_attribute("aria-pressed") == "true"
    # Diagrams are no white slabs on the dark page.
    assert "invert" in _style(page, ".prose img", "filter")
    page.locator("#theme-toggle").click()
    assert _style(page, "body", "backgroundColor") == LIGHT_PAGE
    assert _style(page, ".prose img", "filter") == "none"
    context.close()
    assert errors == []


@VIEWPORTS
@LANGS
def test_a_chosen_theme_wins_over_the_system_and_needs_no_script(browser, live_server, viewport, lang):
    # The system says dark, no choice yet: dark, and the toggle says it is on.
    context = browser.new_context(viewport=viewport, color_scheme="dark")
    page = context.new_page()
    page.goto(f"{live_server}/lang/{lang}?next={LESSON}")
    assert _style(page, "body", "backgroundColor") == DARK_PAGE
    assert page.locator("#theme-toggle").get_attribute("aria-pressed") == "true"
    page.locator("#theme-toggle").click()  # light, against the system
    page.goto(f"{live_server}{LESSON}")
    assert _style(page, "body", "backgroundColor") == LIGHT_PAGE
    assert _style(page, "pre.highlight", "backgroundColor") == LIGHT_CODE
    cookies = context.cookies()
    context.close()
    # Without any script, the page comes in the chosen theme straight from the server.
    bare = browser.new_context(viewport=viewport, color_scheme="light", java_script_enabled=False)
    bare.add_cookies([{**c, "value": "dark"} if c["name"] == "theme" else c for c in cookies])
    page = bare.new_page()
    page.goto(f"{live_server}{LESSON}")
    assert _style(page, "body", "backgroundColor") == DARK_PAGE
    assert _style(page, "pre.highlight", "backgroundColor") == DARK_CODE
    assert not page.locator("#theme-toggle").is_visible()  # it could do nothing without script
    bare.close()


@VIEWPORTS
@LANGS
def test_code_size_is_chosen_and_remembered(browser, live_server, viewport, lang):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    open_editor(page, live_server, CODE_EXERCISE, lang)
    size = page.locator("#editor-font-size")
    assert size.is_enabled() and size.input_value() == "14"
    assert page.locator(".font-size-control").inner_text().startswith(
        {"en": "Code size", "ja": "コードの文字サイズ"}[lang])
    assert _style(page, ".cm-content", "fontSize") == "14px"
    size.select_option("20")
    assert _style(page, ".cm-content", "fontSize") == "20px"
    assert overflow(page) <= 0
    page.reload()
    page.wait_for_selector(".cm-editor .cm-content")
    assert page.locator("#editor-font-size").input_value() == "20"
    assert _style(page, ".cm-content", "fontSize") == "20px"
    context.close()


@VIEWPORTS
def test_japanese_lines_join_without_a_space(browser, live_server, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(f"{live_server}/lang/ja?next=/quizzes/{QUIZ}")
    intro = page.locator(".quiz.prose > p").first.inner_text()
    # The source breaks its lines after 。; a browser showed each break as a space.
    assert "確認しましょう。すべての問題" in intro
    assert not re.search(r"[。、] ", intro)
    for path in (f"/exercises/{CODE_EXERCISE}", LESSON):
        page.goto(f"{live_server}{path}")
        text = page.locator(".prose").first.inner_text()
        assert not re.search(r"[。、] [^\s]", text), path
    # English lines still join with a space.
    page.goto(f"{live_server}/lang/en?next=/quizzes/{QUIZ}")
    intro = page.locator(".quiz.prose > p").first.inner_text()
    assert "devices. Answer every question" in intro
    context.close()


@VIEWPORTS
@LANGS
def test_a_client_that_accepts_only_gzip_gets_gzip(browser, live_server, viewport, lang):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(f"{live_server}/lang/{lang}?next={LESSON}")
    assets = page.evaluate("() => [...document.querySelectorAll('link[rel=stylesheet], script[src]')]"
                           ".map(el => el.href || el.src)")
    assert len(assets) >= 4
    for url in assets:
        response = context.request.get(url, headers={"Accept-Encoding": "gzip"})
        assert response.ok
        assert response.headers.get("content-encoding") == "gzip", url
    # Pages stay uncompressed in every encoding: CSRF tokens beside visitor text (BREACH).
    page_response = context.request.get(f"{live_server}{LESSON}", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in page_response.headers
    context.close()
