"""JSON endpoints: POST a submission or a Run (202, both off the request thread), GET it (owner only), stop a Run."""

from __future__ import annotations

import logging
from typing import Any

from flask import current_app, jsonify, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from app.accounts.identity import learner_key
from app.api import bp
from app.api.bodies import BadBody, read_body, read_code
from app.content import exercise_catalog
from app.errors import json_error, unavailable
from app.exercises.availability import is_unavailable, unavailable_message
from app.extensions import db
from app.grading import admission, runs
from app.grading.handle import get_queue
from app.grading.position import submission_api
from app.i18n import current_lang
from app.models import Run, Submission
from app.progress.access import find_readable

log = logging.getLogger(__name__)


def _read_lang(body: dict[str, Any]) -> str:
    lang = body.get("lang", current_lang())
    return lang if lang in current_app.config["LANGUAGES"] else current_lang()


@bp.post("/exercises/<exercise_id>/submissions")
def submit(exercise_id: str) -> tuple[Response, int] | Response:
    exercise = exercise_catalog().get(exercise_id)
    if exercise is None:
        return json_error(404, "unknown_exercise", _("There is no exercise with this id."))
    if not exercise.kind.accepts_code:
        message = _("This exercise is a quiz; it takes answers, not code.")
        return json_error(400, "not_gradable", message)
    if is_unavailable(exercise):  # refused, never scored 0: the exercise's own tests are broken
        return json_error(409, "exercise_unavailable", unavailable_message())
    try:
        body = read_body()
        code, lang = read_code(body), _read_lang(body)
    except BadBody as bad:
        return json_error(bad.status, bad.error, bad.message)
    submission = Submission(exercise_id=exercise.id, learner=learner_key(), code=code, lang=lang,
                            status="queued")
    refused = admission.admit(submission)  # stores it unless the learner is over their cap
    if refused is not None:
        return refused
    try:
        get_queue(current_app).enqueue(submission.id)
    except Exception:
        # Nothing half-way: a submission no worker will ever see is removed again.
        log.exception("could not enqueue submission %s", submission.id)
        db.session.delete(submission)
        db.session.commit()
        message = _("Grading is unavailable for a moment, so this submission was not kept. "
                    "Your code is still in the editor: wait a minute, then submit again.")
        return unavailable("queue_unavailable", message)  # type: ignore[return-value]
    response = jsonify({"id": submission.id, "status": "queued"})
    response.headers["Location"] = url_for("api.submission", submission_id=submission.id)
    return response, 202


@bp.get("/submissions/<submission_id>")
def submission(submission_id: str) -> tuple[Response, int] | Response:
    found = find_readable(submission_id)  # another learner's id answers like an unknown one
    if found is None:
        return json_error(404, "unknown_submission", _("There is no submission with this id."))
    response = jsonify(submission_api(found))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/exercises/<exercise_id>/run")
def run(exercise_id: str) -> tuple[Response, int] | Response:
    """Store a Run and hand it to the Run lane (202); the page polls /api/runs/<id>.

    The web thread never runs learner code: like a submission, a Run goes through admission
    (per learner, per anonymous address, in all) and a worker runs it in the sandbox.
    Rate-limited like submissions (app/ratelimits.py).
    """
    exercise = exercise_catalog().get(exercise_id)
    if exercise is None:
        return json_error(404, "unknown_exercise", _("There is no exercise with this id."))
    if not exercise.kind.accepts_code:
        return json_error(400, "not_runnable", _("This exercise is a quiz; there is no code to run."))
    try:
        body = read_body()
        code = read_code(body)
    except BadBody as bad:
        return json_error(bad.status, bad.error, bad.message)
    learner = learner_key()
    runs.forget(current_app, learner)  # only the latest Run's output is ever shown
    job = Run(exercise_id=exercise.id, learner=learner, code=code, lang=_read_lang(body), status="queued")
    refused = admission.admit_run(job)
    if refused is not None:
        return refused
    try:
        get_queue(current_app).enqueue_run(job.id)
    except Exception:
        log.exception("could not enqueue run %s", job.id)
        db.session.delete(job)
        db.session.commit()
        return json_error(503, "run_unavailable", _("Running code is unavailable right now. Please try again."))
    response = jsonify(job.to_api())
    response.headers["Location"] = url_for("api.run_status", run_id=job.id)
    response.headers["Cache-Control"] = "no-store"
    return response, 202


def _own_run(run_id: str) -> Run | None:
    found = db.session.get(Run, run_id)
    # Another learner's Run answers exactly like an unknown one; Runs are private, even to instructors.
    return found if found is not None and found.learner == learner_key() else None


@bp.get("/runs/<run_id>")
def run_status(run_id: str) -> tuple[Response, int] | Response:
    found = _own_run(run_id)
    if found is None:
        return json_error(404, "unknown_run", _("There is no run with this id."))
    response = jsonify(found.to_api())
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/runs/<run_id>/stop")
def stop_run(run_id: str) -> tuple[Response, int] | Response:
    """End a queued or running Run (the Stop button); a Run that already ended is left as it is."""
    try:
        read_body()  # JSON only, like every state-changing API call (app.crossorigin)
    except BadBody as bad:
        return json_error(bad.status, bad.error, bad.message)
    found = _own_run(run_id)
    if found is None:
        return json_error(404, "unknown_run", _("There is no run with this id."))
    runs.stop(found)
    db.session.refresh(found)
    response = jsonify(found.to_api())
    response.headers["Cache-Control"] = "no-store"
    return response
