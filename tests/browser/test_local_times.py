"""Times in the reader's zone, named (issue 25): the last submission's own time, not the page-load
time, and the history's times, for a reader in Tokyo at a phone's and a desktop's width, en and ja."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from app.extensions import db
from app.models import Submission
from tests.browser.layout_helpers import CODE_EXERCISE, DESKTOP, MOBILE, add_submission, log_in, make_account

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TOKYO = ZoneInfo("Asia/Tokyo")


def clock_text(moment: datetime, lang: str) -> str:
    """How Chromium writes the hour and minute: 12-hour in English, 24-hour in Japanese."""
    local = moment.astimezone(TOKYO)
    if lang == "en":
        return f"{local.hour % 12 or 12}:{local.minute:02d} {'AM' if local.hour < 12 else 'PM'}"
    return f"{local.hour}:{local.minute:02d}"


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_a_tokyo_reader_sees_the_submission_time_in_tokyo_time(browser, live_app, viewport, lang):
    app, base = live_app
    email = f"tokyo-{lang}-{viewport['width']}@example.com"
    _, key = make_account(app, email)
    sub_id = add_submission(app, key, minutes_ago=300)  # five hours ago: far from the page-load time
    with app.app_context():
        sent = db.session.get(Submission, sub_id).created_at  # aware: app.models.UTCDateTime
        db.session.remove()
    context = browser.new_context(viewport=viewport, timezone_id="Asia/Tokyo", locale=lang)
    page = context.new_page()
    log_in(page, base, email)
    if lang == "ja":
        page.goto(base + "/lang/ja?next=/")
    page.goto(f"{base}/exercises/{CODE_EXERCISE}")
    note = page.locator("#last-note")
    note.wait_for()
    text = note.inner_text()
    assert clock_text(sent, lang) in text, text
    assert clock_text(datetime.now(UTC), lang) not in text  # not the time the page was opened
    assert ("GMT+9" in text) or ("JST" in text), text  # the zone is named

    page.goto(f"{base}/exercises/{CODE_EXERCISE}/history")
    stamp = page.locator("time[data-local]").first
    assert clock_text(sent, lang) in stamp.inner_text()
    assert ("GMT+9" in stamp.inner_text()) or ("JST" in stamp.inner_text())
    assert stamp.get_attribute("datetime").endswith("+00:00")
    context.close()
