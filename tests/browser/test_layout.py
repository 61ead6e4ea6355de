"""Every page at a desktop and a phone viewport, in English and Japanese, anonymous, as a
learner and as an instructor: nothing sticks out sideways, and the header fits the window."""

from __future__ import annotations

import pytest

from app.content.lessons import LessonCatalog
from app.content.markdown import RenderCache
from tests.browser.conftest import REPO
from tests.browser.layout_helpers import (
    CODE_EXERCISE,
    DESKTOP,
    MOBILE,
    QUIZ,
    add_submission,
    log_in,
    make_account,
    overflow,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSONS = [lesson.slug for lesson in LessonCatalog(REPO / "lessons", RenderCache()).all("en")]


def pages(who: str, ids: dict[str, object]) -> list[str]:
    found = ["/", *[f"/lessons/{slug}/" for slug in LESSONS], f"/exercises/{CODE_EXERCISE}",
             f"/quizzes/{QUIZ}", "/progress", f"/exercises/{CODE_EXERCISE}/history"]
    if who == "anonymous":
        found += ["/login", "/register"]
    else:
        found.append(f"/submissions/{ids['submission']}")
    if who == "instructor":
        found += ["/instructor/", "/instructor/learners", f"/instructor/learners/{ids['learner_id']}",
                  "/instructor/validation", f"/submissions/{ids['learner_submission']}"]
    return found


@pytest.mark.parametrize("viewport", [DESKTOP, MOBILE], ids=["desktop", "mobile"])
@pytest.mark.parametrize("who", ["anonymous", "learner", "instructor"])
def test_no_page_is_wider_than_the_window(browser, live_app, viewport, who):
    app, base = live_app
    learner_id, learner_key = make_account(app, "a.very.long.learner.name@example.org")
    ids: dict[str, object] = {
        "learner_id": learner_id,
        "learner_submission": add_submission(app, learner_key, verdict="fail"),
    }
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    if who != "anonymous":
        email = "a.very.long.instructor.name@example.org" if who == "instructor" else "learner@example.org"
        _id, key = make_account(app, email, who)
        ids["submission"] = add_submission(app, key, verdict="fail")
        log_in(page, base, email)
    else:
        page.goto(base + "/")  # an anonymous learner's submission needs this browser's key
        key = page.context.cookies()  # noqa: F841 -- the history page is empty for them
    wide: list[str] = []
    for lang in ("en", "ja"):
        page.goto(f"{base}/lang/{lang}?next=/")
        for path in pages(who, ids):
            page.goto(base + path)
            page.wait_for_load_state("load")
            extra = overflow(page)
            header = page.evaluate("() => document.querySelector('.site-header').scrollWidth")
            if extra > 0 or header > viewport["width"]:
                wide.append(f"{lang} {path}: page +{extra}px, header {header}px")
    context.close()
    assert wide == [], "\n".join(wide)
