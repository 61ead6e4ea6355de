"""The validation page rechecks a folder that changed, and a folder whose tests cannot run is kept from learners."""

from __future__ import annotations

import time

import pytest

import app.content.exercises
from app.extensions import db
from app.grading import checks
from app.models import ExerciseValidation, Submission
from grader.validate import AUTHORING, FolderReport
from tests.app.accounts_helpers import signed_in


@pytest.fixture(autouse=True)
def look_at_files_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app.content.exercises, "RECHECK_S", 0.0)


def wait_checked(flask_app, exercise_id: str, fingerprint: str | None = None, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with flask_app.app_context():
            row = db.session.get(ExerciseValidation, exercise_id)
            if row is not None and row.state == "done" and (fingerprint is None or row.fingerprint == fingerprint):
                db.session.expunge(row)
                return row
        time.sleep(0.05)
    raise AssertionError(f"{exercise_id} not checked in {timeout}s")


def fingerprint_of(flask_app, exercise_id: str) -> str:
    with flask_app.app_context():
        return flask_app.extensions["exercise_catalog"].fingerprint(exercise_id)


@pytest.mark.parametrize("lang,changed_text", [
    ("en", "changed since last check, rechecking"), ("ja", "前回のチェック以降に変更あり、再チェック中")])
def test_a_changed_folder_is_stale_and_rechecked_in_the_background(make_app, content, lang, changed_text):
    checked: list[str] = []

    def fake_check(exercise, sandbox=None):
        checked.append((exercise.path / "solution.py").read_text())
        time.sleep(0.3)  # long enough for a page to see the recheck under way
        return FolderReport(exercise.id, True, [])

    flask_app = make_app(VALIDATE_FUNCTION=fake_check)
    teacher = signed_in(flask_app, "teach@example.org", role="instructor")
    teacher.set_cookie("lang", lang)
    with flask_app.app_context():
        checks.request(flask_app, ["add-numbers"])
    before = fingerprint_of(flask_app, "add-numbers")
    row = wait_checked(flask_app, "add-numbers")
    assert row.ok and row.fingerprint == before
    html = teacher.get("/instructor/validation").get_data(as_text=True)
    assert 'data-validation="done-ok"' in html and changed_text not in html and len(checked) == 1

    solution = content["exercises"] / "add-numbers" / "solution.py"
    solution.write_text("def add(a, b):\n    return b + a\n", encoding="utf-8")
    after = fingerprint_of(flask_app, "add-numbers")
    assert after != before
    html = teacher.get("/instructor/validation").get_data(as_text=True)  # the view queues the recheck
    row_html = html[html.index('data-exercise="add-numbers"'):].split("</tr>")[0]
    assert 'data-changed="true"' in row_html and changed_text in row_html
    row = wait_checked(flask_app, "add-numbers", fingerprint=after)
    assert row.ok and checked[-1] == "def add(a, b):\n    return b + a\n"
    html = teacher.get("/instructor/validation").get_data(as_text=True)
    assert changed_text not in html and len(checked) == 2  # fresh again: viewing queues nothing more
    flask_app.extensions["grading_queue"].shutdown(wait=True)


def break_statically(content) -> None:
    tests = content["exercises"] / "add-numbers" / "tests" / "test_add.py"
    tests.write_text("import no_such_helper\n\n\ndef test_add():\n    pass\n", encoding="utf-8")


@pytest.mark.parametrize("lang,badge,message", [
    ("en", "unavailable for now", "This exercise is unavailable for now"),
    ("ja", "現在利用できません", "この演習はいま利用できません"),
])
def test_a_folder_whose_tests_cannot_import_is_unavailable_to_learners(make_app, content, lang, badge, message):
    break_statically(content)
    flask_app = make_app()
    learner = flask_app.test_client()
    learner.set_cookie("lang", lang)
    lesson = learner.get("/lessons/01-python-basics/").get_data(as_text=True)
    item = lesson[lesson.index('data-exercise="add-numbers"'):].split("</li>")[0]
    assert 'data-unavailable="true"' in item and badge in item and 'href="/exercises/add-numbers"' not in item
    assert 'href="/exercises/add-again"' in lesson  # the others stay open
    page = learner.get("/exercises/add-numbers")
    assert page.status_code == 503 and message in page.get_data(as_text=True)
    refused = learner.post("/api/exercises/add-numbers/submissions",
                           json={"code": "def add(a, b):\n    return a + b\n"})
    assert refused.status_code == 409 and refused.get_json()["error"] == "exercise_unavailable"
    assert message in refused.get_json()["message"]
    with flask_app.app_context():
        assert db.session.query(Submission).count() == 0  # refused, never stored or scored 0
    teacher = signed_in(flask_app, "teach@example.org", role="instructor")
    html = teacher.get("/instructor/validation").get_data(as_text=True)
    row_html = html[html.index('data-exercise="add-numbers"'):].split("</tr>")[0]
    assert 'data-unavailable="true"' in row_html
    assert "tests/test_add.py:1: ModuleNotFoundError: No module named &#39;no_such_helper&#39;" in row_html


def test_a_stored_authoring_error_hides_the_folder_until_it_changes(make_app, content):
    def broken_check(exercise, sandbox=None):
        return FolderReport(exercise.id, False, [AUTHORING + "tests/test_add.py:3: TypeError: check 'x': depends "
                                                 "must be a list of slugs, not a string"])

    flask_app = make_app(VALIDATE_FUNCTION=broken_check)
    with flask_app.app_context():
        checks.request(flask_app, ["add-numbers"])
    row = wait_checked(flask_app, "add-numbers")
    assert row.broken and not row.ok
    learner = flask_app.test_client()
    assert learner.get("/exercises/add-numbers").status_code == 503
    assert learner.post("/api/exercises/add-numbers/submissions",
                        json={"code": "def add(a, b):\n    return a + b\n"}).status_code == 409
    # The author fixes the folder: the stored verdict is about other contents now, and no longer hides it.
    (content["exercises"] / "add-numbers" / "tests" / "test_add.py").write_text(
        "def test_add():\n    assert True\n", encoding="utf-8")
    assert learner.get("/exercises/add-numbers").status_code == 200
    flask_app.extensions["grading_queue"].shutdown(wait=True)


def test_a_learners_grading_that_meets_broken_tests_hides_the_folder(make_app, content):
    """Tests that only fail when imported (no cheap check sees them): the first grading tells."""
    from grader.messages import run_error
    from grader.results import error_result
    from tests.app.web_helpers import wait_for_done

    problem = "tests/test_add.py:3: TypeError: check 'x': depends must be a list of slugs, not a string"

    def broken_grader(exercise, code, *, lang="en", sandbox="auto"):
        return error_result(exercise.id, "authoring", run_error("authoring", lang, detail=problem)).to_dict()

    flask_app = make_app(GRADE_FUNCTION=broken_grader)
    learner = flask_app.test_client()
    sent = learner.post("/api/exercises/add-numbers/submissions", json={"code": "def add(a, b):\n    return a + b\n"})
    assert sent.status_code == 202
    done = wait_for_done(learner, sent.get_json()["id"])
    assert done["result"]["error_kind"] == "authoring"
    row = wait_checked(flask_app, "add-numbers")
    assert row.broken and problem in row.problems[0] and row.fingerprint == fingerprint_of(flask_app, "add-numbers")
    assert learner.get("/exercises/add-numbers").status_code == 503
    refused = learner.post("/api/exercises/add-numbers/submissions", json={"code": "x = 1\n"})
    assert refused.status_code == 409
