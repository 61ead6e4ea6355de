"""Instructor pages of a regrade: start one from the drill-down page (a CSRF-checked POST), follow its report."""

from __future__ import annotations

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user
from werkzeug.wrappers import Response

from app.content import exercise_catalog
from app.grading import regrade
from app.instructor import bp
from app.instructor.forms import RegradeForm
from app.instructor.regrade_report import latest_run, report
from app.progress.routes import check_title_map


def _code_exercise(exercise_id: str):  # type: ignore[no-untyped-def]
    found = exercise_catalog().get(exercise_id)
    if found is None or not found.kind.accepts_code:
        abort(404)
    return found


@bp.post("/instructor/exercises/<exercise_id>/regrade")
def start_regrade(exercise_id: str) -> Response:
    """Regrade the exercise's stored submissions (each learner's latest, or all) in the background."""
    exercise = _code_exercise(exercise_id)
    form = RegradeForm()
    if not form.validate_on_submit():
        abort(400)
    try:
        run = regrade.start(current_app, exercise.id, scope="all" if request.form.get("scope") == "all" else "latest",
                            requested_by=current_user.email)
    except regrade.Refused as exc:
        flash(_refusal(exc.reason))
        return redirect(url_for("instructor.regrade_report", exercise_id=exercise.id), code=303)
    flash(_("Regrading %(count)d submission(s) in the background, after learners' gradings.", count=run.total))
    return redirect(url_for("instructor.regrade_report", exercise_id=exercise.id), code=303)


def _refusal(reason: str) -> str:
    if reason == "under_way":
        return _("A regrade of this exercise is under way: wait for it to finish, then regrade again.")
    if reason == "not_validated":
        return _("The exercise's folder has not passed its check as it is now. "
                 "Check it on the validation page first: broken tests would grade every submission.")
    return _("This exercise cannot be regraded.")


@bp.get("/instructor/exercises/<exercise_id>/regrade")
def regrade_report(exercise_id: str) -> str:
    """The newest regrade of the exercise: changed verdicts first; the page refreshes itself while it runs."""
    exercise = _code_exercise(exercise_id)
    run = latest_run(exercise.id)
    return render_template("instructor/regrade.html", exercise=exercise,
                           report=report(run) if run is not None else None,
                           names=check_title_map(exercise))
