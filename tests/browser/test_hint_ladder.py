"""The hint ladder in a real browser (issue 25): after the nudge, More help reveals the idea with a link
to the lesson section, then the API, in the page's language, at a phone's and a desktop's width."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import HintReveal
from tests.browser.layout_helpers import CODE_EXERCISE, DESKTOP, MOBILE, add_submission, log_in, make_account, overflow

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WORDS = {
    "en": {"more": "More help", "idea": "The idea:", "api": "The API to use:", "idea_text": "Two tensors of shapes",
           "section": "Operations and broadcasting"},
    "ja": {"more": "さらにヒントを見る", "idea": "考え方:", "api": "使う API:", "idea_text": "形状 (n, 1, d) と",
           "section": None},
}


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_more_help_climbs_the_ladder_and_stops_before_the_line(browser, live_app, viewport, lang):
    app, base = live_app
    email = f"ladder-{lang}-{viewport['width']}@example.com"
    _, key = make_account(app, email)
    add_submission(app, key)  # its distances-shape check failed
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    log_in(page, base, email)
    if lang == "ja":
        page.goto(base + "/lang/ja?next=/")
    page.goto(f"{base}/exercises/{CODE_EXERCISE}")
    card = page.locator('.test[data-check="distances-shape"]')
    card.wait_for()
    words = WORDS[lang]
    more = card.locator("button.hint-more")
    assert more.inner_text() == words["more"]
    assert card.locator(".hint-rung").count() == 0  # only the nudge until asked

    more.click()
    idea = card.locator(".hint-rung.hint-concept")
    idea.wait_for()
    assert idea.inner_text().startswith(words["idea"]) and words["idea_text"] in idea.inner_text()
    link = idea.locator("a.hint-lesson")
    href = link.get_attribute("href")
    assert href.startswith("/lessons/01-tensors/#")
    if words["section"]:
        assert link.inner_text() == words["section"]

    more.click()
    api = card.locator(".hint-rung.hint-api")
    api.wait_for()
    assert api.inner_text().startswith(words["api"]) and "unsqueeze" in api.inner_text()
    assert card.locator("button.hint-more").count() == 0  # the top rung: no more help, never the line
    assert "[None, :, :]" not in card.inner_text()
    assert overflow(page) == 0

    # The section the idea links to is on the lesson page, in this language.
    link.click()
    page.wait_for_load_state()
    anchor = href.split("#", 1)[1]
    assert page.locator(f'[id="{anchor}"]').count() == 1
    assert problems == []
    with app.app_context():
        rungs = sorted(r.rung for r in db.session.query(HintReveal).filter_by(learner=key))
        db.session.remove()
    assert rungs == [2, 3]
    context.close()
