"""Pages: the learner's dashboard, the history of one exercise, one submission with its diff."""

from __future__ import annotations

from flask import abort, render_template
from werkzeug.wrappers import Response

from app.accounts.identity import learner_key
from app.content import exercise_catalog, lesson_catalog
from app.i18n import current_lang
from app.progress import bp
from app.progress.access import readable_submission
from app.progress.diff import submission_diff
from app.progress.history import entries, previous_of
from app.progress.status import by_lesson, learner_progress


def _private(html: str) -> Response:
    response = Response(html, mimetype="text/html")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/progress")
def dashboard() -> Response:
    lang = current_lang()
    titles = {lesson.number: lesson for lesson in lesson_catalog().all(lang)}
    lessons = by_lesson(exercise_catalog().exercises().exercises.values(),
                        learner_progress(learner_key()))
    return _private(render_template("progress/dashboard.html", lessons=lessons, titles=titles))


@bp.get("/exercises/<exercise_id>/history")
def history(exercise_id: str) -> Response:
    exercise = exercise_catalog().get(exercise_id)
    if exercise is None or exercise.config.kind != "code":
        abort(404)
    return _private(render_template(
        "progress/history.html", exercise=exercise,
        title=exercise.config.title.get(current_lang()),
        entries=entries(learner_key(), exercise_id)))


@bp.get("/submissions/<submission_id>")
def submission(submission_id: str) -> Response:
    found = readable_submission(submission_id)
    exercise = exercise_catalog().get(found.exercise_id)
    previous = previous_of(found)
    diff = submission_diff(previous, found) if previous else None
    title = exercise.config.title.get(current_lang()) if exercise else found.exercise_id
    return _private(render_template(
        "progress/submission.html", submission=found, exercise=exercise, title=title,
        result=found.result if found.status == "done" else None,
        previous=previous, diff=diff))
