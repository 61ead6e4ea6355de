"""axe-core on every page type, en and ja, light and dark, 1280 and 390 px, as four kinds of visitor.

axe-core comes from npm (package.json's devDependencies); a scan fails on any violation of the
WCAG 2.0/2.1/2.2 A and AA tags. The page list is keyed by endpoint like the route inventory
(tests/app/web/test_route_inventory.py): a GET route added to the app without a page here, or a
reason it is no page, fails test_every_page_route_is_scanned.

Cost on 2 cores: one browser, one page per visitor; each address is loaded once per language and
scanned four times (theme and width switch in place: <html data-theme> and the viewport).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from app.extensions import db
from app.models import ExerciseValidation, Submission
from app.progress import drafts
from app.quizzes import attempts
from grader.api import grade_quiz, load_exercises, public_questions
from tests.app.web.test_route_inventory import get_endpoints
from tests.browser.layout_helpers import (
    CODE_EXERCISE,
    DESKTOP,
    MOBILE,
    QUIZ,
    log_in,
    make_account,
    result_document,
)
from tests.browser.regrade_helpers import finished_run

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
SLUGS = sorted(p.name for p in (REPO / "lessons").iterdir() if p.is_dir())
STATES = ["anonymous", "new learner", "learner with history", "instructor"]
FIGURE = {"id": "loss-scale", "title": "Your loss scale, step by step", "x_label": "optimizer step",
          "y_label": "scaler.get_scale()", "y_scale": "log", "note": "",
          "series": [{"name": "GradScaler 1", "points": [[1, 65536.0], [2, 65536.0], [3, 32768.0]]}],
          "marks": [{"x": 3, "label": "stopped: scaler.step raised an error"}]}
LONG_LINE = "    return (a[:, None, :] - b[None, :, :]).pow(2).sum(dim=-1)  # " + "a long comment " * 8


@dataclass
class World:
    """Ids of the rows the pages show: the busy learner's submissions and quiz attempt."""

    submissions: list[str]
    attempt: str
    busy_id: int


# Every GET endpoint: the addresses that show it as a page, for one visitor.
PAGES: dict[str, Callable[[World], list[str]]] = {
    "lessons.course": lambda w: ["/"],
    "lessons.lesson": lambda w: [f"/lessons/{slug}/" for slug in SLUGS],
    "exercises.show": lambda w: [f"/exercises/{CODE_EXERCISE}", "/exercises/amp-train-one-epoch",
                                 f"/exercises/{CODE_EXERCISE}?restore={w.submissions[0]}",
                                 "/exercises/nope"],
    "progress.history": lambda w: [f"/exercises/{CODE_EXERCISE}/history"],
    "progress.submission": lambda w: [f"/submissions/{s}" for s in w.submissions],
    "progress.dashboard": lambda w: ["/progress"],
    "quizzes.show": lambda w: [f"/quizzes/{QUIZ}", f"/quizzes/{QUIZ}?attempt={w.attempt}"],
    "accounts.login": lambda w: ["/login"],
    "accounts.register": lambda w: ["/register"],
    "accounts.password": lambda w: ["/account/password"],
    "instructor.overview": lambda w: ["/instructor/"],
    "instructor.learners": lambda w: ["/instructor/learners"],
    "instructor.learner": lambda w: [f"/instructor/learners/{w.busy_id}"],
    # A check is running while this is scanned: the page that polls (issue 34's meta refresh).
    "instructor.validation": lambda w: ["/instructor/validation"],
    "instructor.exercise": lambda w: [f"/instructor/exercises/{CODE_EXERCISE}",
                                      f"/instructor/exercises/{QUIZ}"],
    "instructor.regrade_report": lambda w: [f"/instructor/exercises/{CODE_EXERCISE}/regrade"],
}
# GET endpoints that are no page of their own, and why.
NOT_PAGES = {
    "lessons.image": "an SVG picture inside a lesson",
    "progress.submission_code": "a fragment the history page opens (scanned there, opened)",
    "progress.submission_panel": "the results panel the editor swaps in (scanned there)",
    "progress.get_draft": "JSON", "progress.api_history": "JSON", "api.submission": "JSON",
    "api.run_status": "JSON", "quizzes.api_questions": "JSON", "instructor.stats": "JSON",
    "instructor.export": "CSV", "static": "files", "set_language": "a redirect",
}


def test_every_page_route_is_scanned(live_app) -> None:
    app, _ = live_app
    unknown = get_endpoints(app) - set(PAGES) - set(NOT_PAGES)
    assert not unknown, f"add these GET endpoints to PAGES (or NOT_PAGES) in {Path(__file__).name}: {unknown}"


def _seed(app: Any) -> World:
    make_account(app, "new@example.org")
    busy_id, busy = make_account(app, "busy@example.org")
    make_account(app, "teach@example.org", role="instructor")
    exercises = load_exercises(REPO / "exercises").exercises
    code = "import torch\n\n\ndef pairwise_sq_distances(a, b):\n" + LONG_LINE + "\n"
    failing = {**result_document("fail"), "figures": [FIGURE]}
    error = {**result_document("fail"), "status": "error", "error_kind": "syntax", "score": 0.0,
             "message": "invalid syntax (line 5)", "line": 5, "tests": []}
    with app.app_context():
        rows = [Submission(exercise_id=CODE_EXERCISE, learner=busy, lang="en", status="done",
                           code=text, result=result,
                           created_at=datetime.now(UTC) - timedelta(minutes=minutes))
                for text, result, minutes in ((code, error, 3), (code + "# again\n", failing, 2),
                                              (code + "# third\n", result_document("pass"), 1))]
        db.session.add_all(rows)
        db.session.add(ExerciseValidation(exercise_id=CODE_EXERCISE, state="running"))
        db.session.commit()
        ids = [row.id for row in rows]
        drafts.save(exercises[CODE_EXERCISE], busy, code + "# draft\n")
        quiz = exercises[QUIZ]
        first = public_questions(quiz)[0]
        answers = {first["id"]: first["choices"][0]["id"] if first.get("choices") else "1"}
        attempt = attempts.record(QUIZ, busy, answers, grade_quiz(quiz, answers, "en"), "en").id
        db.session.remove()
    # An instructor's regrade changed the latest one: the report has rows, the learner's pages a note.
    finished_run(app, ids[2], ids[1])
    return World(ids, attempt, busy_id)


SCAN = """async (tags) => {
  // A frame for what follows a resize (scrollables.js marks the boxes that now scroll).
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const found = await axe.run(document, {runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]});
  return found.violations.map((v) => ({id: v.id, impact: v.impact,
    nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(" ")} :: ${n.failureSummary.split("\\n")[1] || ""}`),
    count: v.nodes.length}));
}"""


def _settle(page: Any) -> None:
    """Wait for what scripts draw after load: the editor and its last result, history entries."""
    page.wait_for_load_state("networkidle")
    if page.locator("#workbench[data-submit-url]").count():
        page.wait_for_selector("#workbench.editor-ready")
        if page.locator("#last-note:not([hidden])").count():
            page.wait_for_selector("#results .verdict")
    # Every folded part open: its contents are scanned too (history entries, skipped checks).
    for summary in page.locator("details:not([open]) > summary").all():
        if summary.is_visible():
            summary.click()
    page.wait_for_load_state("networkidle")


def _urls(state: str, world: World) -> list[str]:
    """Every page; the lessons' text is the same for every visitor, so the anonymous one reads
    all of them and each other visitor one (a different one each: the header and quiz marks)."""
    urls = [url for endpoint in PAGES for url in PAGES[endpoint](world)]
    if state == "anonymous":
        return urls
    mine = f"/lessons/{SLUGS[STATES.index(state) % len(SLUGS)]}/"
    return [url for url in urls if not url.startswith("/lessons/") or url == mine]


@pytest.mark.parametrize("state", STATES)
def test_no_page_has_an_axe_violation(browser, live_app, state: str) -> None:
    if not AXE.is_file():
        pytest.skip("browser test skipped: node_modules/axe-core is missing (npm ci)")
    app, base = live_app
    world = _seed(app)
    context = browser.new_context(viewport=DESKTOP, bypass_csp=True)  # axe is injected as a script
    page = context.new_page()
    email = {"new learner": "new@example.org", "learner with history": "busy@example.org",
             "instructor": "teach@example.org"}.get(state)
    if email:
        log_in(page, base, email)
    axe = AXE.read_text(encoding="utf-8")
    failures: list[str] = []
    scans = 0
    for lang in ("en", "ja"):
        page.goto(f"{base}/lang/{lang}?next=/")
        seen: set[str] = set()
        for url in _urls(state, world):
            page.set_viewport_size(DESKTOP)
            response = page.goto(base + url)
            status = response.status if response else 0
            # An anonymous visitor sent to the login page again, or one more refusal: scanned once.
            key = str(status) if status >= 400 else page.url
            if key in seen:
                continue
            seen.add(key)
            _settle(page)
            page.add_script_tag(content=axe)
            for theme in ("light", "dark"):
                page.evaluate("t => { document.documentElement.dataset.theme = t; }", theme)
                for viewport in (DESKTOP, MOBILE):
                    page.set_viewport_size(viewport)
                    scans += 1
                    for v in page.evaluate(SCAN, TAGS):
                        nodes = json.dumps(v["nodes"], ensure_ascii=False)
                        failures.append(f"{url} {lang} {theme} {viewport['width']}: {v['id']} "
                                        f"({v['impact']}, {v['count']} nodes) {nodes}")
    context.close()
    print(f"{state}: {scans} scans")
    assert not failures, f"{len(failures)} violating scans of {scans}:\n" + "\n".join(failures)
