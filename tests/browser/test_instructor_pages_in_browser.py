"""The instructor's pages at 390 and 1280 px in en and ja (issue 25, item 11): lessons named,
whole medians, AMP and quiz checks by title, the per-exercise drill-down, and a validation page
that shows a finished check without a manual reload."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from app.content import exercise_catalog, lesson_catalog
from app.extensions import db
from app.models import ExerciseValidation, QuizAttempt, Submission
from grader.api import check_titles, load_quiz
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

AMP = "amp-train-one-epoch"


def seed(app, learners: list[str]) -> None:
    """Two learners pass after 5 and 7 attempts (median 6, once shown "6.0"); an AMP failure; a
    wrong quiz answer."""
    for key, attempts in zip(learners, (5, 7), strict=True):
        for n in range(attempts):
            add_submission(app, key, verdict="pass" if n == attempts - 1 else "fail", minutes_ago=60 - n)
    failing = {"status": "fail", "score": 0.5, "tests": [
        {"check": "backward-on-scaled-loss", "status": "fail", "title": "x", "message": ""}]}
    quiz = {"status": "fail", "score": 0.0, "tests": [{"check": "default-int-dtype", "status": "fail"}]}
    with app.app_context():
        db.session.add(Submission(exercise_id=AMP, learner=learners[0], code="x = 1\n", status="done",
                                  result=failing, created_at=datetime.now(UTC) - timedelta(minutes=3)))
        db.session.add(QuizAttempt(learner=learners[0], exercise_id=QUIZ, answers={}, result=quiz, score=0.0))
        db.session.commit()
        db.session.remove()


def names(app, lang: str) -> dict[str, str]:
    with app.app_context():
        catalog = exercise_catalog()
        found = {"lesson": next(item.title for item in lesson_catalog().all(lang) if item.number == 1),
                 "amp": check_titles(catalog.get(AMP), lang)["backward-on-scaled-loss"],
                 "shape": check_titles(catalog.get(CODE_EXERCISE), lang)["distances-shape"]}
        quiz = catalog.get(QUIZ)
        found["quiz"] = next(q.text.get(lang) for q in load_quiz(quiz).questions if q.id == "default-int-dtype")
        # As the page reads them: `code` spans shown as code, without raw backticks (issue 34).
        return {key: text.replace("`", "") for key, text in found.items()}


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_the_instructor_reads_titles_whole_medians_and_a_drilldown(browser, live_app, viewport, lang):
    app, base = live_app
    learners = [make_account(app, f"l{n}-{lang}-{viewport['width']}@example.org")[1] for n in (1, 2)]
    seed(app, learners)
    make_account(app, "teach@example.org", role="instructor")
    expected = names(app, lang)
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    log_in(page, base, "teach@example.org")
    if lang == "ja":
        page.goto(base + "/lang/ja?next=/")
    page.goto(base + "/instructor/")
    row = page.locator(f'tr[data-exercise="{CODE_EXERCISE}"]')
    assert row.locator("td").nth(3).inner_text().strip() == "6"  # not "6.0"
    assert expected["lesson"] in row.locator(".lesson").inner_text()
    amp = page.locator(f'tr[data-exercise="{AMP}"] [data-check="backward-on-scaled-loss"]')
    assert amp.inner_text() == expected["amp"]
    quiz = page.locator(f'tr[data-exercise="{QUIZ}"] [data-check="default-int-dtype"]')
    assert quiz.inner_text() == expected["quiz"]
    assert overflow(page) == 0

    row.locator("a").first.click()
    page.wait_for_selector(".drill-checks")
    assert page.url.endswith(f"/instructor/exercises/{CODE_EXERCISE}")
    check = page.locator('.drill-checks tr[data-check="distances-shape"] td')
    assert check.nth(0).inner_text() == expected["shape"]
    assert check.nth(1).inner_text() == "2" and check.nth(2).inner_text() == "10"  # learners, results
    assert page.locator(".attempts-distribution tr[data-attempts]").count() == 7
    assert page.locator(".drill-examples li").count() == 5  # the latest few, not all ten
    assert expected["lesson"] in page.locator("p.lesson").inner_text()
    assert overflow(page) == 0
    context.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_the_validation_page_shows_a_finished_check_without_a_reload(browser, live_app, viewport, lang):
    app, base = live_app
    make_account(app, "teach@example.org", role="instructor")
    with app.app_context():
        db.session.add(ExerciseValidation(exercise_id=CODE_EXERCISE, state="running"))
        db.session.commit()
        db.session.remove()
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    log_in(page, base, "teach@example.org")
    if lang == "ja":
        page.goto(base + "/lang/ja?next=/")
    page.goto(base + "/instructor/validation")
    assert page.locator(f'tr[data-exercise="{CODE_EXERCISE}"]').get_attribute("data-validation") == "running"
    assert page.locator("#validation-refresh").is_visible()
    with app.app_context():
        row = db.session.get(ExerciseValidation, CODE_EXERCISE)
        row.state, row.ok, row.checked_at = "done", True, datetime.now(UTC)
        # Done for the folder as it is now: a verdict for other contents is rechecked.
        row.fingerprint = app.extensions["exercise_catalog"].fingerprint(CODE_EXERCISE)
        db.session.commit()
        db.session.remove()
    started = time.monotonic()
    page.wait_for_selector(f'tr[data-exercise="{CODE_EXERCISE}"][data-validation="done-ok"]', timeout=20_000)
    assert time.monotonic() - started < 20
    assert page.locator("#validation-refresh").count() == 0  # and it stops refreshing
    context.close()
