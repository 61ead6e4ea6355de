"""Views: the course page, a lesson page and the images a lesson refers to."""

from __future__ import annotations

from flask import abort, render_template, send_from_directory
from werkzeug.wrappers import Response

from app.content import exercise_catalog, lesson_catalog
from app.i18n import current_lang
from app.lessons import bp


@bp.get("/")
def course() -> str:
    lang = current_lang()
    lessons = lesson_catalog().all(lang)
    counts = {lesson.slug: len(exercise_catalog().for_lesson(lesson.number)) for lesson in lessons}
    return render_template("course.html", lessons=lessons, counts=counts)


# The trailing slash matters: a lesson's Markdown refers to its images as img/name.svg,
# which the browser resolves against the lesson's own folder-like URL.
@bp.get("/lessons/<slug>/")
def lesson(slug: str) -> str:
    lang = current_lang()
    found = lesson_catalog().get(slug, lang)
    if found is None:
        abort(404)
    before, after = lesson_catalog().neighbours(slug, lang)
    exercises = exercise_catalog().for_lesson(found.number)
    return render_template(
        "lesson.html", lesson=found, exercises=exercises, before=before, after=after,
    )


@bp.get("/lessons/<slug>/img/<path:filename>")
def image(slug: str, filename: str) -> Response:
    found = lesson_catalog().get(slug, "en")
    if found is None:
        abort(404)
    # send_from_directory joins safely: '..' or an absolute path gives 404, not a file.
    return send_from_directory(found.path / "img", filename, max_age=3600)
