"""The paged history in Chromium: older pages by link, a collapsed entry fetches its code when
opened, and the page itself never carries more than one submission's code."""

from __future__ import annotations

import pytest

from app.accounts.users import create_user
from app.extensions import db
from app.models import Submission

pytestmark = pytest.mark.browser
EXERCISE = "tensors-dtype-memory"
EMAIL, PASSWORD = "pager@example.org", "a long walk in the park"


def test_history_pages_and_entries_open_on_demand(browser, live_app):
    app, url = live_app
    with app.app_context():
        user = create_user(EMAIL, PASSWORD)
        for n in range(13):
            db.session.add(Submission(exercise_id=EXERCISE, learner=user.learner_key,
                                      code=f"value = {n}  # version-{n}\n", status="done",
                                      result={"version": 1, "status": "fail", "score": 0.0,
                                              "tests": [], "message": ""}))
            db.session.commit()
        db.session.remove()
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url + "/login")
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(url + "/progress")

    page.goto(f"{url}/exercises/{EXERCISE}/history")
    items = page.locator("li.history-item")
    assert items.count() == 10
    html = page.content()
    assert "version-12" in html and "version-10" not in html  # one code on the page
    second = items.nth(1)
    second.locator("summary").click()
    second.locator(".submission-code").wait_for(timeout=10_000)
    assert "version-11" in second.inner_text()
    assert "version-10" in second.locator(".diff").inner_text()  # its diff with the one before

    page.get_by_role("link", name="Older submissions →").first.click()
    page.wait_for_url("**/history?before=*")
    assert page.locator("li.history-item").count() == 3
    assert "version-2" in page.content()
    page.get_by_role("link", name="← Newer submissions").first.click()
    page.wait_for_url("**/history?after=*")
    assert page.locator("li.history-item").count() == 10
    assert errors == []
    page.close()
