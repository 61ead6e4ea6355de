"""Issue 34's item 7, the small list, in a real browser: no score beside a syntax error, legends
without bullets, tick labels apart, check titles and quiz rows without raw Markdown on the
instructor's drill-down, which names the learners of its failing submissions, CSV times with their
zone, and a phone table that shows it scrolls."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.extensions import db
from app.models import Submission
from app.quizzes import attempts
from grader.api import grade_quiz, load_exercises
from tests.browser.layout_helpers import (
    CODE_EXERCISE,
    DESKTOP,
    MOBILE,
    QUIZ,
    log_in,
    make_account,
    result_document,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
TIMES = {"id": "step-time", "title": "Time per step", "x_label": "width", "y_label": "ms", "y_scale": "log",
         "series": [{"name": "autocast", "points": [[256, 0.21], [512, 0.22], [1024, 0.25], [2048, 0.4]]}],
         "marks": []}
TICK_CENTRES = """() => [...document.querySelectorAll('.result-figure > svg text[text-anchor="end"]')]
  .map((t) => { const b = t.getBoundingClientRect(); return b.top + b.height / 2; })"""


def _add(app, key: str, exercise: str, result: dict) -> str:
    with app.app_context():
        sub = Submission(exercise_id=exercise, learner=key, lang="en", status="done", code="import torch\n",
                         result=result, created_at=datetime.now(UTC))
        db.session.add(sub)
        db.session.commit()
        found = sub.id
        db.session.remove()
        return found


def test_learner_pages(browser, live_app):
    app, base = live_app
    _, key = make_account(app, "small@example.org")
    error = {**result_document("fail"), "status": "error", "error_kind": "syntax", "score": 0.0,
             "message": "invalid syntax", "line": 3, "tests": []}
    _add(app, key, CODE_EXERCISE, {**result_document("fail"), "figures": [TIMES]})
    _add(app, key, CODE_EXERCISE, error)
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in(page, base, "small@example.org")
    page.goto(f"{base}/exercises/{CODE_EXERCISE}/history")
    first = page.locator(".history-item summary").first
    assert "error" in first.inner_text().lower() and "Score" not in first.inner_text()  # once "ERROR Score 0%"
    page.locator(".history-item summary").nth(1).click()
    page.wait_for_selector(".result-figure .figure-legend")
    assert page.evaluate("() => getComputedStyle(document.querySelector('.figure-legend')).listStyleType") == "none"
    centres = sorted(page.evaluate(TICK_CENTRES))
    assert len(centres) >= 2 and min(b - a for a, b in zip(centres, centres[1:], strict=False)) >= 12, centres
    # The phone's progress table shows a shadow where more of it is, and takes the focus to scroll.
    page.set_viewport_size(MOBILE)
    page.goto(f"{base}/progress")
    box = page.locator(".table-scroll").first
    assert "radial-gradient" in box.evaluate("b => getComputedStyle(b).backgroundImage")
    page.wait_for_function("() => document.querySelector('.table-scroll').tabIndex === 0")
    page.context.close()


def test_instructor_drilldown(browser, live_app):
    app, base = live_app
    _, key = make_account(app, "learner-one@example.org")
    make_account(app, "teach@example.org", role="instructor")
    moves = {"name": "test_moves", "check": "moves-batch", "status": "fail", "title": "Moves each batch to `device`",
             "message": "", "hint": "", "line": None, "points": 0, "max_points": 1}
    _add(app, key, "loop-train-epoch", {**result_document("fail"), "exercise": "loop-train-epoch", "tests": [moves]})
    quiz = load_exercises(REPO / "exercises").exercises[QUIZ]
    with app.app_context():
        answers = {"default-int-dtype": "int32"}
        attempts.record(QUIZ, key, answers, grade_quiz(quiz, answers, "en"), "en")
        db.session.remove()
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in(page, base, "teach@example.org")
    page.goto(f"{base}/instructor/exercises/loop-train-epoch")
    row = page.locator('.drill-checks tr[data-check="moves-batch"]')
    assert "`" not in row.inner_text() and row.locator("code").inner_text() == "device"
    assert "learner-one@example.org" in page.locator(".drill-examples").inner_text()
    page.goto(f"{base}/instructor/exercises/{QUIZ}")
    quiz_row = page.locator('.drill-checks tr[data-check="default-int-dtype"]')
    assert "`" not in quiz_row.inner_text() and quiz_row.locator("code").count() == 1
    # The instructor is no learner of the list.
    page.goto(f"{base}/instructor/learners")
    assert "teach@example.org" not in page.locator("main table").inner_text()
    # The CSV the learners page links to gives its times with their zone (they were naive).
    with page.expect_download() as download:
        page.locator('a[href$="export.csv"]').first.click()
    rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8"))))
    stamps = [r["last_at"] for r in rows if r["email"] == "learner-one@example.org" and r["last_at"]]
    assert stamps and all(datetime.fromisoformat(s).utcoffset() is not None for s in stamps), stamps
    page.context.close()
