"""Feedback in the reader's current language (issue 25): a submission graded in Japanese reads in
English in the English interface and the reverse, on the editor page and on the
submission page (the server), at 390 and 1280 px. The results come from the real grader."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.extensions import db
from app.models import Submission
from grader.api import grade_code
from grader.loader import load_exercise
from tests.browser.layout_helpers import CODE_EXERCISE, DESKTOP, MOBILE, log_in, make_account

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
TITLE = {"en": "standardize_columns gives every column mean 0 and std 1",
         "ja": "standardize_columns で各列の平均が 0、標準偏差が 1 になる"}
MESSAGE = {"en": "The columns do not come out with mean 0", "ja": "各列の平均が 0、標準偏差が 1 になっていません"}


@pytest.fixture(scope="module")
def graded() -> dict[str, dict]:
    exercise = load_exercise(REPO / "exercises" / CODE_EXERCISE)
    return {lang: grade_code(exercise, exercise.starter, lang=lang, sandbox="local") for lang in ("en", "ja")}


@pytest.mark.parametrize("graded_in, shown_in", [("ja", "en"), ("en", "ja")])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_feedback_follows_the_interface_language(browser, live_app, graded, viewport, graded_in, shown_in):
    app, base = live_app
    email = f"lang-{graded_in}-{viewport['width']}@example.com"
    _, key = make_account(app, email)
    with app.app_context():
        sub = Submission(exercise_id=CODE_EXERCISE, learner=key, lang=graded_in, status="done",
                         code=load_exercise(REPO / "exercises" / CODE_EXERCISE).starter,
                         result=graded[graded_in], created_at=datetime.now(UTC))
        db.session.add(sub)
        db.session.commit()
        sub_id = sub.id
        db.session.remove()
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    log_in(page, base, email)
    page.goto(f"{base}/lang/{shown_in}?next=/")
    for url, card in ((f"{base}/exercises/{CODE_EXERCISE}", '#results .test[data-check="standardize-shape-values"]'),
                      (f"{base}/submissions/{sub_id}", '.results-panel .test[data-check="standardize-shape-values"]')):
        page.goto(url)
        found = page.locator(card)
        found.wait_for()
        text = found.inner_text()
        assert TITLE[shown_in] in text and MESSAGE[shown_in] in text, (url, text)
        assert TITLE[graded_in] not in text
    context.close()


AMP_EXERCISE = "amp-train-one-epoch"


def test_an_amp_check_not_checked_reads_in_the_page_language(browser, live_app):
    """Issue 34, item 4: an AMP check's skip ("Not checked: your function never trains the
    model ...") was kept in the graded language only, so a ja page showed it in English."""
    app, base = live_app
    exercise = load_exercise(REPO / "exercises" / AMP_EXERCISE)
    doc = grade_code(exercise, exercise.starter, lang="en", sandbox="local")
    _, key = make_account(app, "amp-lang@example.com")
    with app.app_context():
        sub = Submission(exercise_id=AMP_EXERCISE, learner=key, lang="en", status="done",
                         code=exercise.starter, result=doc, created_at=datetime.now(UTC))
        db.session.add(sub)
        db.session.commit()
        sub_id = sub.id
        db.session.remove()
    page = browser.new_context(viewport=MOBILE).new_page()
    log_in(page, base, "amp-lang@example.com")
    page.goto(f"{base}/lang/ja?next=/")
    for url, panel in ((f"{base}/exercises/{AMP_EXERCISE}", "#results .results-panel"),
                       (f"{base}/submissions/{sub_id}", "main .results-panel")):
        page.goto(url)
        page.locator(f"{panel} .test.skip").first.wait_for()
        text = page.locator(panel).inner_text()
        assert "未確認：" in text and "Not checked" not in text, (url, text)
    page.context.close()


def test_a_syntax_error_reads_in_the_page_language(browser, live_app):
    """Issue 34, item 4: a whole-run message had one language: a ja page showed "Python could
    not read your code: ..." under its Japanese title, for a submission graded in English."""
    app, base = live_app
    exercise = load_exercise(REPO / "exercises" / CODE_EXERCISE)
    doc = grade_code(exercise, "def f(:\n", lang="en", sandbox="local")
    _, key = make_account(app, "syntax-lang@example.com")
    with app.app_context():
        db.session.add(Submission(exercise_id=CODE_EXERCISE, learner=key, lang="en", status="done",
                                  code="def f(:\n", result=doc, created_at=datetime.now(UTC)))
        db.session.commit()
        db.session.remove()
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in(page, base, "syntax-lang@example.com")
    page.goto(f"{base}/lang/ja?next=/exercises/{CODE_EXERCISE}/history")
    detail = page.locator(".history-item .error-detail").first.inner_text()
    assert "Python が読み込めませんでした" in detail and "could not read" not in detail, detail
    page.context.close()
