"""Instructor pages: exercise statistics, learners, one learner, CSV export, folder validation."""

from __future__ import annotations

from flask import abort, current_app, flash, redirect, render_template, request, stream_with_context, url_for
from flask_babel import gettext as _
from sqlalchemy import select
from werkzeug.wrappers import Response

from app.content import exercise_catalog, lesson_catalog
from app.extensions import db
from app.grading import checks
from app.i18n import current_lang
from app.instructor import bp
from app.instructor.drilldown import drilldown
from app.instructor.export import progress_csv
from app.instructor.forms import ValidateForm
from app.instructor.learners import LEARNERS_PAGE, accounts, anonymous_learners, every_learner_row, learner_rows
from app.instructor.stats import exercise_stats
from app.models import ExerciseValidation, User
from app.progress.aggregates import learner_progress
from app.progress.hints import use_by_exercise
from app.progress.history import page
from app.progress.status import by_lesson
from grader.api import Exercise


def _exercises() -> list[Exercise]:
    found = exercise_catalog().exercises().exercises.values()
    return sorted(found, key=lambda e: (e.config.lesson, e.config.order, e.id))


def _lesson_titles() -> dict[int, str]:
    """lesson number -> its title in the page's language: lessons are named, not only numbered."""
    return {lesson.number: lesson.title for lesson in lesson_catalog().all(current_lang())}


@bp.get("/instructor/")
def overview() -> str:
    exercises = _exercises()
    stats = exercise_stats([e.id for e in exercises])
    return render_template("instructor/overview.html", exercises=exercises, stats=stats,
                           hint_use=use_by_exercise(), lesson_titles=_lesson_titles())


@bp.get("/instructor/exercises/<exercise_id>")
def exercise(exercise_id: str) -> str:
    """One exercise in detail: which checks fail and how often, examples, hint use, attempts."""
    found = exercise_catalog().get(exercise_id)
    if found is None:
        abort(404)
    return render_template("instructor/exercise.html", exercise=found,
                           detail=drilldown(found.id, found.kind.accepts_code),
                           lesson_titles=_lesson_titles())


@bp.get("/instructor/learners")
def learners() -> str:
    number = request.args.get("page", default=1, type=int) or 1
    pages = max(1, -(-accounts() // LEARNERS_PAGE))
    if not 1 <= number <= pages:
        abort(404)
    return render_template("instructor/learners.html", rows=learner_rows(number),
                           anonymous=anonymous_learners(), total=len(_exercises()),
                           page=number, pages=pages)


@bp.get("/instructor/learners/<int:user_id>")
def learner(user_id: int) -> str:
    user = db.session.get(User, user_id)
    if user is None:
        abort(404)
    exercises = _exercises()
    lessons = by_lesson(exercises, learner_progress(user.learner_key))
    recent = {e.id: page(user.learner_key, e.id, size=5).submissions
              for e in exercises if e.kind.accepts_code}
    return render_template("instructor/learner.html", user=user, lessons=lessons, recent=recent,
                           lesson_titles=_lesson_titles())


@bp.get("/instructor/export.csv")
def export() -> Response:
    # Streamed: the accounts are read a page at a time, never all rows of every learner at once.
    response = Response(stream_with_context(progress_csv(every_learner_row(), _exercises())),
                        mimetype="text/csv")
    response.headers["Content-Disposition"] = "attachment; filename=progress.csv"
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/instructor/validation")
def validation() -> str:
    catalog = exercise_catalog()
    loaded = catalog.exercises()
    # A folder changed since its verdict is checked again now (the sweep would see it within a round).
    checks.request(current_app, [row.exercise_id for row in db.session.scalars(select(ExerciseValidation))
                                 if checks.is_stale(row, catalog.fingerprint(row.exercise_id))])
    states = {row.exercise_id: row for row in db.session.scalars(select(ExerciseValidation))}
    exercises = _exercises()
    # While a check runs the page polls for its table (validation.js, a polite live region).
    running = any(states[e.id].state != "done" for e in exercises if e.id in states)
    return render_template("instructor/validation.html", errors=loaded.errors, exercises=exercises,
                           states=states, form=ValidateForm(), running=running,
                           fingerprints={e.id: catalog.fingerprint(e.id) for e in exercises},
                           authoring={e.id: catalog.authoring_problems(e.id) for e in exercises})


@bp.post("/instructor/validation")
def validate() -> Response | tuple[str, int]:
    form = ValidateForm()
    if not form.validate_on_submit():
        abort(400)
    known = {e.id for e in _exercises()}
    wanted = request.form.get("exercise")
    if wanted and wanted not in known:
        abort(404)
    queued = checks.request(current_app, [wanted] if wanted else sorted(known))
    flash(_("Checking %(count)d folder(s) in the background; this page shows the results as they come.",
            count=len(queued)))
    return redirect(url_for("instructor.validation"), code=303)
