"""The regrade report and the learner's note at 390 and 1280 px in en and ja: changed verdicts first,
nothing wider than the window, the note in the learner's language."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.extensions import db
from app.models import Regrade, RegradeRun, Submission
from tests.browser.layout_helpers import (
    CODE_EXERCISE,
    DESKTOP,
    MOBILE,
    add_submission,
    log_in,
    make_account,
    overflow,
    result_document,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTE = {"en": "after the exercise changed: was 60%, now 100%.", "ja": "に再採点しました：60% → 100%"}


def finished_run(app, changed: str, unchanged: str) -> None:
    """A regrade run as its worker leaves it: one verdict changed (60% -> 100%), one the same."""
    old = {**result_document("fail"), "score": 0.6}
    with app.app_context():
        run = RegradeRun(exercise_id=CODE_EXERCISE, scope="latest", total=2, requested_by="teach@example.org",
                         finished_at=datetime.now(UTC))
        db.session.add(run)
        db.session.flush()
        new = result_document("pass")
        db.session.add_all([
            Regrade(run_id=run.id, submission_id=unchanged, exercise_id=CODE_EXERCISE, status="done",
                    old_result=result_document("fail"), new_result=result_document("fail"), old_score=0.25,
                    new_score=0.25, changed=[], finished_at=datetime.now(UTC), attempts=1),
            Regrade(run_id=run.id, submission_id=changed, exercise_id=CODE_EXERCISE, status="done",
                    old_result=old, new_result=new, old_score=0.6, new_score=1.0,
                    changed=["distances-shape"], finished_at=datetime.now(UTC), attempts=1),
        ])
        db.session.get(Submission, changed).result = new
        db.session.commit()
        db.session.remove()


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
    context.close()
