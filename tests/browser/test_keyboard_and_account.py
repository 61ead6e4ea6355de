"""Keyboard and phone rough edges of issue 25: a skip link to the editor, a note on leaving it (Esc, then
Tab), and the password change reachable on a phone, at 390 and 1280 px in en and ja."""

from __future__ import annotations

import pytest

from tests.browser.layout_helpers import CODE_EXERCISE, DESKTOP, MOBILE, log_in, make_account, open_editor

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SKIP = {"en": "Skip to the editor", "ja": "エディタへ移動"}
KEYS = {"en": "press Esc, then Tab", "ja": "Esc を押してから Tab"}
PASSWORD_LINK = {"en": "Change my password", "ja": "パスワードを変更する"}
IN_EDITOR = "() => !!document.activeElement?.closest('.cm-editor')"


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_one_tab_and_enter_reach_the_editor_and_esc_then_tab_leaves_it(browser, live_server, viewport, lang):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    open_editor(page, live_server, CODE_EXERCISE, lang)
    page.keyboard.press("Tab")
    focused = page.evaluate("() => [document.activeElement.className, document.activeElement.textContent]")
    assert focused == ["skip-link", SKIP[lang]]  # it was 14 Tabs to the editor
    assert page.locator(".skip-link").is_visible()  # visible while focused
    page.keyboard.press("Enter")
    assert page.evaluate(IN_EDITOR)

    # Inside, Tab indents, and the note the editor points to says how to get out.
    before = page.evaluate("window.laipEditor.getCode()")
    page.keyboard.press("Tab")
    assert page.evaluate(IN_EDITOR) and page.evaluate("window.laipEditor.getCode()") != before
    note = page.locator("#editor-keys")
    assert note.is_visible() and KEYS[lang] in note.inner_text()
    assert page.locator(".cm-content").get_attribute("aria-describedby") == "editor-keys"
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert not page.evaluate(IN_EDITOR)
    context.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_the_password_change_is_reachable_from_the_progress_page(browser, live_app, viewport, lang):
    app, base = live_app
    email = f"phone-{lang}-{viewport['width']}@example.com"
    make_account(app, email)
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    log_in(page, base, email)
    if lang == "ja":
        page.goto(base + "/lang/ja?next=/")
    page.goto(base + "/progress")
    link = page.get_by_role("link", name=PASSWORD_LINK[lang], exact=True).locator("visible=true")
    assert link.count() == 1  # on a phone the header's email link is hidden; this one is not
    link.click()
    page.wait_for_load_state()
    assert page.url.endswith("/password") or "/password" in page.url
    assert page.locator("input[type=password]").count() >= 2
    context.close()
