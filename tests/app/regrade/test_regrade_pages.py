"""The regrade from the instructor's pages (CSRF POST, instructors only, report with changed verdicts first) and
the learner's note, in English and Japanese; progress and the CSV follow the new results."""

from __future__ import annotations

import csv
import io

from app.extensions import db
from app.grading import regrade
from app.models import User
from tests.app.accounts_helpers import csrf_of, login, make_user, signed_in
from tests.app.grading.queues import wait_until
from tests.app.regrade.regrade_helpers import EXERCISE, GOOD, WRONG, mark_validated, old_result, store_submissions

DRILL = f"/instructor/exercises/{EXERCISE}"
REPORT = f"/instructor/exercises/{EXERCISE}/regrade"


def _key(app, email):
    with app.app_context():
        return db.session.query(User).filter_by(email=email).one().learner_key


def _finished(app):
    with app.app_context():
        return regrade.active_run(EXERCISE) is None


def _editor_panel(client, submission_id: str) -> str:
    """The part of progress.submission_panel the editor keeps (results.js swaps in .results-panel only)."""
    html = client.get(f"/submissions/{submission_id}/panel").get_data(as_text=True)
    start = html.index('<div class="results-panel"')
    return html[start:html.rindex("</div>") + len("</div>")]


def test_only_instructors_start_a_regrade_and_only_with_a_csrf_token(make_app):
    app = make_app(WTF_CSRF_ENABLED=True)
    mark_validated(app)
    learner = signed_in(app, "learner@example.org")
    assert learner.get(REPORT).status_code == 403
    token = csrf_of(learner.get("/").get_data(as_text=True))
    assert learner.post(REPORT, data={"csrf_token": token}).status_code == 403
    teacher = signed_in(app, "teacher@example.org", role="instructor")
    assert teacher.post(REPORT, data={}).status_code == 400
    assert teacher.get("/instructor/exercises/pick-a-dtype/regrade").status_code == 404  # a quiz has no code
    with app.app_context():
        assert regrade.active_run(EXERCISE) is None  # nothing was started


def test_report_lists_changed_verdicts_first_and_the_learner_reads_the_note(make_app):
    app = make_app(WTF_CSRF_ENABLED=True, GRADER_WORKERS=1)
    for email in ("same@example.org", "fixed@example.org"):
        make_user(app, email)
    same, fixed = _key(app, "same@example.org"), _key(app, "fixed@example.org")
    # "same" stays failing; "fixed" was wrongly failed at 60% by the old check and passes now.
    unchanged_id, fixed_id = store_submissions(app, [(same, WRONG, old_result(False, 0.0)),
                                                     (fixed, GOOD, old_result(False, 0.6))])
    teacher = signed_in(app, "teacher@example.org", role="instructor")
    # Not yet validated: refused, with the reason.
    drill = teacher.get(DRILL).get_data(as_text=True)
    refused = teacher.post(REPORT, data={"csrf_token": csrf_of(drill), "scope": "latest"}, follow_redirects=True)
    assert "has not passed its check" in refused.get_data(as_text=True)
    mark_validated(app)
    started = teacher.post(REPORT, data={"csrf_token": csrf_of(drill), "scope": "latest"})
    assert started.status_code == 303 and started.headers["Location"].endswith(REPORT)
    wait_until(lambda: _finished(app), 60, "the regrade to finish")

    html = teacher.get(REPORT).get_data(as_text=True)
    assert "2 of 2 regraded" in html and "1 verdict(s) changed." in html
    assert html.index(f'data-submission="{fixed_id}"') < html.index(f'data-submission="{unchanged_id}"')
    row = html[html.index(f'data-submission="{fixed_id}"'):]
    assert "fixed@example.org" in row and "60%" in row and "100%" in row and "<td>returns-sum</td>" in row
    assert 'http-equiv="refresh"' not in html  # finished: no more refreshing
    assert 'name="scope"' in html  # and it can be regraded again

    learner = app.test_client()
    login(learner, "fixed@example.org")
    page = learner.get(f"/submissions/{fixed_id}").get_data(as_text=True)
    assert "after the exercise changed: was 60%, now 100%." in page and "Regraded on <time" in page
    history = learner.get(f"/exercises/{EXERCISE}/history").get_data(as_text=True)
    assert "was 60%, now 100%" in history
    assert "was 60%, now 100%" in _editor_panel(learner, fixed_id)
    learner.get("/lang/ja")
    japanese = learner.get(f"/submissions/{fixed_id}").get_data(as_text=True)
    assert "演習の変更により <time" in japanese and "に再採点しました：60% → 100%" in japanese
    assert "に再採点しました：60% → 100%" in _editor_panel(learner, fixed_id)
    other = signed_in(app, "other@example.org")
    assert "data-regraded" not in other.get(f"/exercises/{EXERCISE}/history").get_data(as_text=True)

    rows = list(csv.DictReader(io.StringIO(teacher.get("/instructor/export.csv").get_data(as_text=True))))
    mine = {r["email"]: r for r in rows if r["exercise"] == EXERCISE}
    assert mine["fixed@example.org"]["state"] == "solved" and mine["fixed@example.org"]["best_score"] == "1.000"
    assert mine["same@example.org"]["state"] != "solved"
    overview = teacher.get("/instructor/").get_data(as_text=True)
    row = overview[overview.index(f'data-exercise="{EXERCISE}"'):]
    assert "50% <span class=\"meta\">(1/2)</span>" in row[:800]  # the overview's pass rate follows


def test_the_history_fragment_is_not_served_stale_after_a_regrade(make_app):
    app = make_app(GRADER_WORKERS=1)
    make_user(app, "fixed@example.org")
    (fixed_id,) = store_submissions(app, [(_key(app, "fixed@example.org"), GOOD, old_result(False, 0.6))])
    learner = app.test_client()
    login(learner, "fixed@example.org")
    before = learner.get(f"/submissions/{fixed_id}/code")
    assert before.status_code == 200 and "data-regraded" not in before.get_data(as_text=True)
    mark_validated(app)
    with app.app_context():
        regrade.start(app, EXERCISE)
    wait_until(lambda: _finished(app), 60, "the regrade to finish")
    after = learner.get(f"/submissions/{fixed_id}/code", headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200 and "was 60%, now 100%" in after.get_data(as_text=True)
