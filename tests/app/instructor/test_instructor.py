"""Instructor pages: pass rate, attempts until a pass, failing checks, learners, CSV, validation."""

from __future__ import annotations

import csv
import io
import time

import pytest

from app.extensions import db
from app.grading import checks
from app.instructor.stats import exercise_stats
from app.models import ExerciseValidation, Submission
from grader import results
from grader.validate import FolderReport
from tests.app.accounts_helpers import GOOD, URL, WRONG, csrf_of, make_user, signed_in
from tests.app.web_helpers import wait_for_done


def two_check_grader(exercise, code, *, lang="en", sandbox="auto"):
    """Fails `returns-sum` unless the code adds; fails `has-docstring` unless it has one."""
    adds, documented = "return a + b" in code, '"""' in code
    tests = [
        results.TestResult(name="test_sum", check="returns-sum", title="Returns the sum",
                   status="pass" if adds else "fail", message="" if adds else "wrong sum",
                   hint="", line=None, points=1 if adds else 0, max_points=1),
        results.TestResult(name="test_doc", check="has-docstring", title="Has a docstring",
                   status="pass" if documented else "fail", message="", hint="", line=None,
                   points=1 if documented else 0, max_points=1),
    ]
    return results.summarize(exercise.id, tests).to_dict()


@pytest.fixture
def app(make_app):
    return make_app(GRADE_FUNCTION=two_check_grader)


@pytest.fixture
def teacher(app):
    return signed_in(app, "teach@example.org", role="instructor")


def submit(client, code):
    wait_for_done(client, client.post(URL, json={"code": code}).get_json()["id"])


DOCUMENTED = 'def add(a, b):\n    """Add."""\n    return a + b\n'


def test_stats_pass_rate_attempts_until_pass_and_failing_checks(app, teacher):
    ada, bob, cy = (signed_in(app, f"{n}@example.org") for n in ("ada", "bob", "cy"))
    submit(ada, WRONG)          # fails both checks
    submit(ada, WRONG)          # the same checks again: Ada still counts once per check
    submit(ada, DOCUMENTED)     # pass on the third attempt
    submit(bob, GOOD)           # fails has-docstring only
    submit(cy, DOCUMENTED)      # pass on the first attempt
    body = teacher.get("/api/instructor/stats").get_json()
    stats = {item["exercise"]: item for item in body["exercises"]}["add-numbers"]
    assert stats["learners"] == 3 and stats["passed"] == 2
    assert stats["pass_rate"] == pytest.approx(2 / 3)
    assert stats["median_attempts_to_pass"] == 2 and stats["mean_attempts_to_pass"] == 2
    assert stats["submissions"] == 5
    assert stats["failing_checks"] == [{"check": "has-docstring", "learners": 2},
                                       {"check": "returns-sum", "learners": 1}]
    html = teacher.get("/instructor/").get_data(as_text=True)
    assert "67%" in html and "(2/3)" in html and 'data-check="has-docstring"' in html


def test_stats_ignore_removed_exercises_and_count_waiting_work(app):
    failing = {"status": "fail", "score": 0.0,
               "tests": [{"check": "x", "status": "fail"}, {"check": "y", "status": "pass"}]}
    with app.app_context():
        db.session.add_all([
            Submission(exercise_id="gone", learner="a", code="x", status="done", result=failing),
            Submission(exercise_id="kept", learner="a", code="x", status="done", result=failing),
            Submission(exercise_id="kept", learner="b", code="x", status="queued"),  # waits for a grader
            Submission(exercise_id="kept", learner="c", code="x", status="done",  # the platform's fault
                       result={**failing, "error_kind": "internal"})])
        db.session.commit()
        table = exercise_stats(["kept"])
    assert set(table) == {"kept"}
    assert table["kept"].learners == 2 and table["kept"].passed == 0 and table["kept"].submissions == 2
    assert dict(table["kept"].failing_checks) == {"x": 1}
    assert table["kept"].pass_rate == 0.0 and table["kept"].median_attempts_to_pass is None


@pytest.mark.parametrize("counts, median, mean", [({1: 1}, 1, 1), ({1: 1, 3: 1}, 2, 2),
                                                  ({1: 2, 5: 1}, 1, 7 / 3), ({2: 2, 4: 2}, 3, 3)])
def test_median_and_mean_from_the_histogram(counts, median, mean):
    from collections import Counter

    from app.instructor.stats import ExerciseStats

    stats = ExerciseStats("e", attempts_to_pass=Counter(counts))
    assert stats.median_attempts_to_pass == median and stats.mean_attempts_to_pass == pytest.approx(mean)


def test_learners_page_and_one_learners_progress(app, teacher):
    ada = signed_in(app, "ada@example.org")
    submit(ada, DOCUMENTED)
    app.test_client().post(URL, json={"code": GOOD})  # an anonymous learner
    html = teacher.get("/instructor/learners").get_data(as_text=True)
    assert "ada@example.org" in html and "1 / 3" in html
    assert "1 learner without an account has worked on exercises." in html
    detail = teacher.get("/instructor/learners/2").get_data(as_text=True)  # 1 is the teacher
    assert "ada@example.org" in detail
    assert 'data-exercise="add-numbers" data-state="solved"' in detail
    assert teacher.get("/instructor/learners/99").status_code == 404


def test_csv_export(app, teacher):
    make_user(app, "=cmd|' /C calc'!A0@example.org")
    ada = signed_in(app, "ada@example.org")
    submit(ada, WRONG)
    submit(ada, DOCUMENTED)
    response = teacher.get("/instructor/export.csv")
    assert response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    mine = {r["exercise"]: r for r in rows if r["email"] == "ada@example.org"}
    assert mine["add-numbers"]["state"] == "solved" and mine["add-numbers"]["attempts"] == "2"
    assert mine["add-numbers"]["attempts_to_pass"] == "2"
    assert mine["add-numbers"]["best_score"] == "1.000"
    assert mine["add-again"]["state"] == "not_started"
    emails = {r["email"] for r in rows}
    assert "'=cmd|' /c calc'!a0@example.org" in emails  # a formula is written as text


def write_broken_folder(content):
    folder = content["exercises"] / "broken-one"
    folder.mkdir()
    (folder / "exercise.toml").write_text('id = "broken-one"\nlesson = 9\n', encoding="utf-8")


def test_validation_page_lists_load_errors_without_grading(app, teacher, content):
    write_broken_folder(content)
    html = teacher.get("/instructor/validation").get_data(as_text=True)
    assert 'data-folder="broken-one"' in html and "exercise.toml" in html
    assert 'data-exercise="add-numbers" data-validation="unchecked"' in html


def wait_validated(app, exercise_id, timeout=120.0):  # a cap only: a busy host is slow
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with app.app_context():
            row = db.session.get(ExerciseValidation, exercise_id)
            if row is not None and row.state == "done":
                db.session.expunge(row)
                return row
        time.sleep(0.05)
    raise AssertionError(f"{exercise_id} not validated in {timeout}s")


def test_validation_runs_in_the_background_on_request(make_app, content):
    checked = []

    def fake_check(exercise, sandbox=None):
        checked.append((exercise.id, sandbox))
        ok = exercise.id != "add-again"
        return FolderReport(exercise.id, ok, [] if ok else ["starter.py must fail its checks"])

    app = make_app(VALIDATE_FUNCTION=fake_check)
    teacher = signed_in(app, "teach@example.org", role="instructor")
    assert checked == []  # viewing never grades
    teacher.get("/instructor/validation")
    assert checked == []
    refused = teacher.post("/instructor/validation", data={})  # no CSRF token
    assert refused.status_code == 400 and checked == []
    token = csrf_of(teacher.get("/instructor/validation").get_data(as_text=True))
    response = teacher.post("/instructor/validation", data={"csrf_token": token})
    assert response.status_code == 303
    assert wait_validated(app, "add-numbers").ok is True
    failed = wait_validated(app, "add-again")
    assert failed.ok is False and failed.problems == ["starter.py must fail its checks"]
    assert ("add-numbers", "local") in checked  # the configured sandbox
    html = teacher.get("/instructor/validation").get_data(as_text=True)
    assert 'data-validation="done-failed"' in html and "starter.py must fail" in html
    one = teacher.post("/instructor/validation",
                       data={"csrf_token": token, "exercise": "add-numbers"})
    assert one.status_code == 303
    assert teacher.post("/instructor/validation",
                        data={"csrf_token": token, "exercise": "nope"}).status_code == 404
    app.extensions["grading_queue"].shutdown(wait=True)
    assert sum(1 for ex_id, _ in checked if ex_id == "add-numbers") == 2


def test_a_crashing_check_is_reported_not_stuck(make_app):
    def crash(exercise, sandbox=None):
        raise RuntimeError("boom")

    app = make_app(VALIDATE_FUNCTION=crash)
    with app.app_context():
        checks.request(app, ["add-numbers"])
    row = wait_validated(app, "add-numbers")
    assert row.ok is False and row.problems == ["could not be checked: RuntimeError"]


@pytest.mark.slow
def test_validation_through_the_real_grader(make_app, content):
    """grader.validate.check_exercise itself: the repository's own lesson-1 exercise is valid."""
    from pathlib import Path

    exercises = Path(__file__).resolve().parents[3] / "exercises"
    if not (exercises / "tensors-dtype-memory").is_dir():
        pytest.skip("exercises/tensors-dtype-memory is missing")
    app = make_app(EXERCISES_DIR=str(exercises), GRADER_SANDBOX="local")
    with app.app_context():
        checks.request(app, ["tensors-dtype-memory"])
    row = wait_validated(app, "tensors-dtype-memory", timeout=240)
    assert row.ok is True, row.problems
    assert row.checked_at is not None
