"""The instructor's exercise drill-down, whole medians, lesson titles, quiz check titles and a
validation page that refreshes itself (issue 25, item 11)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from app.extensions import db
from app.instructor.stats import ExerciseStats
from app.models import ExerciseValidation, HintReveal, QuizAttempt, Submission
from tests.app.accounts_helpers import GOOD, URL, WRONG, signed_in
from tests.app.instructor.test_instructor import DOCUMENTED, two_check_grader
from tests.app.web_helpers import wait_for_done

QUIZ = '''[[questions]]
id = "default-int-dtype"
kind = "single"
answer = "int64"
text.en = "What is the dtype of an integer tensor?"
text.ja = "整数のテンソルの dtype は何ですか。"
explanation.en = "int64."
explanation.ja = "int64 です。"
choices = [
  { id = "int32", text = { en = "int32", ja = "int32" } },
  { id = "int64", text = { en = "int64", ja = "int64" } },
]
'''


@pytest.fixture
def app(make_app, content):
    # The checks' titles come from the folder's tests (grader.api.check_titles), as for real exercises.
    (Path(content["exercises"]) / "add-numbers" / "tests" / "test_add.py").write_text(
        "from grader.testing import check\n\n"
        '@check("returns-sum", title={"en": "Returns the sum", "ja": "和を返す"})\n'
        "def test_sum():\n    pass\n\n"
        '@check("has-docstring", title={"en": "Has a docstring", "ja": "docstring がある"})\n'
        "def test_doc():\n    pass\n", encoding="utf-8")
    return make_app(GRADE_FUNCTION=two_check_grader)


@pytest.fixture
def teacher(app):
    return signed_in(app, "teach@example.org", role="instructor")


def submit(client, code):
    wait_for_done(client, client.post(URL, json={"code": code}).get_json()["id"])


def test_the_drilldown_shows_failing_checks_examples_hint_use_and_attempts(app, teacher):
    ada, bob, cy = (signed_in(app, f"{n}@example.org") for n in ("ada", "bob", "cy"))
    submit(ada, WRONG)          # fails both checks
    submit(ada, WRONG)          # again: 2 results, 1 learner
    submit(ada, DOCUMENTED)     # passes on the third attempt
    submit(bob, GOOD)           # fails has-docstring only
    submit(cy, DOCUMENTED)      # passes on the first
    with app.app_context():
        db.session.add_all([HintReveal(learner="a", exercise_id="add-numbers", check_id="returns-sum", rung=2),
                            HintReveal(learner="b", exercise_id="add-numbers", check_id="returns-sum", rung=2),
                            HintReveal(learner="b", exercise_id="add-numbers", check_id="returns-sum", rung=3),
                            HintReveal(learner="b", exercise_id="add-again", check_id="returns-sum", rung=3)])
        db.session.commit()
    html = teacher.get("/instructor/").get_data(as_text=True)
    assert 'href="/instructor/exercises/add-numbers"' in html
    page = teacher.get("/instructor/exercises/add-numbers").get_data(as_text=True)
    # has-docstring: 2 learners, 3 results; returns-sum: 1 learner, 2 results, hints 2 + 1.
    docs = page.split('data-check="has-docstring">')[1].split("</tr>")[0]
    assert "<td>2</td><td>3</td>" in docs and "idea 0 · API 0" not in docs
    sums = page.split('data-check="returns-sum">')[1].split("</tr>")[0]
    assert "<td>1</td><td>2</td>" in sums and "idea 2 · API 1" in sums
    assert page.index('data-check="has-docstring"') < page.index('data-check="returns-sum"')
    # Attempts until a pass: one learner at 1, none at 2, one at 3; Bob has not passed.
    assert '<tr data-attempts="1"><td>1</td>' in page and '<tr data-attempts="3"><td>3</td>' in page
    assert 'value="0"' in page.split('data-attempts="2"')[1].split("</tr>")[0]
    assert "1 learner(s) have not passed yet." in page
    examples = page.split('class="drill-examples"')[1].split("</ul>")[0]
    assert examples.count("data-submission=") == 3  # Ada's two and Bob's one; passes are not examples
    assert "Has a docstring" in examples and "Returns the sum" in examples
    assert teacher.get("/instructor/exercises/nope").status_code == 404
    assert signed_in(app, "dan@example.org").get("/instructor/exercises/add-numbers").status_code == 403


def test_a_whole_median_reads_6_not_6_0(app, teacher):
    stats = ExerciseStats("e", attempts_to_pass=Counter({5: 1, 7: 1, 2: 0}))
    assert stats.median_attempts_to_pass == 6 and isinstance(stats.median_attempts_to_pass, int)
    assert ExerciseStats("e", attempts_to_pass=Counter({5: 1, 6: 1})).median_attempts_to_pass == 5.5
    with app.app_context():
        for learner, attempts in (("x", 5), ("y", 7)):
            for n in range(attempts):
                db.session.add(Submission(exercise_id="add-numbers", learner=learner, code="x", status="done",
                                          result={"status": "pass" if n == attempts - 1 else "fail", "score": 1.0,
                                                  "tests": []}))
        db.session.commit()
    html = teacher.get("/instructor/").get_data(as_text=True)
    row = html.split('data-exercise="add-numbers"')[1].split("</tr>")[0]
    assert "<td>6</td>" in row and "6.0" not in row


@pytest.mark.parametrize("lang, lesson", [("en", "Lesson 1: Python basics"), ("ja", "Pythonの基本")])
def test_lessons_are_named_on_the_instructor_pages(app, teacher, lang, lesson):
    ada = signed_in(app, "ada@example.org")
    submit(ada, WRONG)
    teacher.get(f"/lang/{lang}?next=/")
    assert lesson in teacher.get("/instructor/").get_data(as_text=True)
    assert lesson in teacher.get("/instructor/learners/2").get_data(as_text=True)
    assert lesson in teacher.get("/instructor/exercises/add-numbers").get_data(as_text=True)


@pytest.mark.parametrize("lang, title", [("en", "What is the dtype of an integer tensor?"),
                                         ("ja", "整数のテンソルの dtype は何ですか。")])
def test_quiz_rows_name_their_questions_not_their_ids(app, teacher, content, lang, title):
    (Path(content["exercises"]) / "pick-a-dtype" / "quiz.toml").write_text(QUIZ, encoding="utf-8")
    wrong = {"status": "fail", "score": 0.0, "tests": [{"check": "default-int-dtype", "status": "fail"}]}
    with app.app_context():
        db.session.add(QuizAttempt(learner="q", exercise_id="pick-a-dtype", answers={}, result=wrong, score=0.0))
        db.session.commit()
    teacher.get(f"/lang/{lang}?next=/")
    row = teacher.get("/instructor/").get_data(as_text=True).split('data-exercise="pick-a-dtype"')[1]
    assert f'data-check="default-int-dtype" title="default-int-dtype">{title}<' in row.split("</tr>")[0]
    page = teacher.get("/instructor/exercises/pick-a-dtype").get_data(as_text=True)
    assert f'data-check="default-int-dtype"><td>{title}</td>' in page
    assert "drill-examples" not in page  # a quiz has no code to show


def test_the_validation_page_refreshes_itself_only_while_a_check_runs(app, teacher):
    html = teacher.get("/instructor/validation").get_data(as_text=True)
    assert 'http-equiv="refresh"' not in html
    with app.app_context():
        db.session.add(ExerciseValidation(exercise_id="add-numbers", state="running"))
        db.session.commit()
    html = teacher.get("/instructor/validation").get_data(as_text=True)
    # A polite poll (validation.js), never a meta refresh: that sent a screen reader to the top.
    assert "http-equiv" not in html and 'id="validation-refresh"' in html and "validation.js" in html
    with app.app_context():
        row = db.session.get(ExerciseValidation, "add-numbers")
        # Done for the folder as it is now: a verdict for other contents is rechecked (and the
        # page then refreshes while that runs).
        row.state, row.fingerprint = "done", app.extensions["exercise_catalog"].fingerprint("add-numbers")
        db.session.commit()
    assert 'http-equiv="refresh"' not in teacher.get("/instructor/validation").get_data(as_text=True)
