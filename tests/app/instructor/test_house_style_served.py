"""A new instructor's folder that breaks only the house style validates ok and is served to learners."""

from __future__ import annotations

from app.exercises.availability import is_unavailable
from app.extensions import db
from app.grading import checks
from app.models import ExerciseValidation
from tests.app.instructor.test_validation_freshness import wait_checked
from tests.grader.test_house_style import NEW_TITLE, new_instructors_quiz


def test_a_half_width_colon_in_a_new_folder_never_keeps_it_from_learners(make_app, content) -> None:
    # The app's course has no course.toml: its folders are only warned about the house style.
    folder = new_instructors_quiz(content["exercises"].parent)
    assert folder.parent == content["exercises"]
    flask_app = make_app()  # the real instructor check (grader.api.check_exercise)
    with flask_app.app_context():
        checks.request(flask_app, ["quiz-shapes"])  # a folder check, on the grading queue
    row = wait_checked(flask_app, "quiz-shapes")
    assert row.ok and not row.broken and row.problems == [], row.problems
    with flask_app.app_context():
        exercise = flask_app.extensions["exercise_catalog"].get("quiz-shapes")
        assert not is_unavailable(exercise) and db.session.get(ExerciseValidation, "quiz-shapes").ok
    learner = flask_app.test_client()
    learner.set_cookie("lang", "ja")
    page = learner.get("/exercises/quiz-shapes", follow_redirects=True)  # a quiz has its own page
    assert page.status_code == 200 and NEW_TITLE in page.get_data(as_text=True)
    lesson = learner.get("/lessons/01-python-basics/").get_data(as_text=True)
    item = lesson[lesson.index('data-exercise="quiz-shapes"'):].split("</li>")[0]
    assert 'data-unavailable="true"' not in item and "quiz-shapes" in item.split("href=")[1]
