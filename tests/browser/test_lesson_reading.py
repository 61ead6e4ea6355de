"""Reading a long lesson (issue 25, item 9) at 390 and 1280 px, in English and Japanese: the
title comes first, the contents list is folded on a phone and lists each section once, every
id is unique, and "Back to top" appears a screen down and goes back up."""

from __future__ import annotations

import pytest

from tests.browser.layout_helpers import DESKTOP, MOBILE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = "/lessons/03-mixed-precision/"  # the longest: 36 headings, "Exercises" its last h2
EXERCISES = {"en": "Exercises", "ja": "演習"}


def _box(page, selector: str) -> dict[str, float]:
    return page.evaluate("s => { const r = document.querySelector(s).getBoundingClientRect();"
                         " return {top: r.top + window.scrollY, height: r.height}; }", selector)


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [DESKTOP, MOBILE], ids=["desktop", "mobile"])
def test_a_long_lesson_reads_title_first_with_one_entry_per_section(browser, live_server, viewport, lang):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server}/lang/{lang}?next={LESSON}")
    page.wait_for_load_state()
    assert page.evaluate("() => document.documentElement.lang") == lang

    # No id twice in the whole page (lesson 3 had two "exercises").
    repeated = page.evaluate("""() => { const seen = {}; const twice = [];
        for (const el of document.querySelectorAll('[id]')) {
          if (seen[el.id]) twice.push(el.id); seen[el.id] = true; }
        return twice; }""")
    assert repeated == []

    title = _box(page, "h1")
    visible_toc = ".toc-narrow" if viewport is MOBILE else ".toc-wide"
    hidden_toc = ".toc-wide" if viewport is MOBILE else ".toc-narrow"
    assert page.locator(visible_toc).is_visible() and not page.locator(hidden_toc).is_visible()
    toc = _box(page, visible_toc)
    assert title["top"] < toc["top"]  # the title first (it started at 727 px on a phone)
    assert title["top"] < 300  # under the header (three rows on a phone) and the breadcrumbs
    entries = page.locator(f"{visible_toc} li a")
    if viewport is MOBILE:
        # Folded: one line under the title, the text starts on the first screen.
        assert toc["height"] < 80
        assert not page.locator(".toc-narrow li a").first.is_visible()
        assert toc["top"] + toc["height"] < viewport["height"] / 2
        page.locator(".toc-narrow summary").click()
    texts = entries.all_inner_texts()
    assert texts.count(EXERCISES[lang]) == 1 and texts[-1] == EXERCISES[lang]
    assert len(texts) == len(set(texts))
    # Each entry lands on its heading; the last one on the lesson's exercises heading.
    entries.last.click()
    page.wait_for_function("() => location.hash === '#exercises'")
    landed = page.evaluate("() => document.getElementById('exercises').getBoundingClientRect().top")
    assert 0 <= landed < viewport["height"] / 2
    assert page.locator("#exercises").evaluate("el => el.tagName") == "H2"
    assert page.locator(".exercise-list li").count() > 0
    context.close()
    assert errors == []


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [DESKTOP, MOBILE], ids=["desktop", "mobile"])
def test_back_to_top_on_a_long_lesson(browser, live_server, viewport, lang):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(f"{live_server}/lang/{lang}?next={LESSON}")
    page.wait_for_load_state()
    height = page.evaluate("() => document.scrollingElement.scrollHeight")
    assert height > 10_000  # the kind of page it is for
    back = page.locator(".back-to-top")
    assert not back.is_visible()  # at the top there is nowhere to go back to
    page.evaluate("() => window.scrollTo(0, document.scrollingElement.scrollHeight / 2)")
    back.wait_for(state="visible")
    assert back.inner_text().strip() == {"en": "↑ Back to top", "ja": "↑ ページの先頭へ"}[lang]
    box = back.bounding_box()
    assert box["x"] + box["width"] <= viewport["width"] and box["y"] + box["height"] <= viewport["height"]
    back.click()
    page.wait_for_function("() => window.scrollY === 0")
    assert page.evaluate("() => document.activeElement.id") == "main"  # the keyboard follows
    back.wait_for(state="hidden")
    context.close()
