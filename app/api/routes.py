"""JSON endpoints: POST a submission or a Run (202, both off the request thread), GET it (owner only), stop a Run."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import current_app, jsonify, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from app.accounts.identity import learner_key
from app.api import bp
from app.bodies import BadBody, read_body, read_code
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

if TYPE_CHECKING:
    from grader.api import Exercise

log = logging.getLogger(__name__)


def _read_lang(body: dict[str, Any]) -> str:
    lang = body.get("lang", current_lang())
    return lang if lang in current_app.config["LANGUAGES"] else current_lang()


def _code_exercise(exercise_id: str, error: str, message: str) -> tuple[Exercise | None, tuple[Response, int] | None]:
    """The exercise a job's code is for, or the answer refusing it (unknown: 404; a quiz: 400 `error`)."""
    exercise = exercise_catalog().get(exercise_id)
    if exercise is None:
        return None, json_error(404, "unknown_exercise", _("There is no exercise with this id."))
    if not exercise.kind.accepts_code:
        return None, json_error(400, error, message)
    return exercise, None


def _hand_over(kind: str, job: Submission | Run, admit: Callable[[Any], tuple[Response, int] | None],
               unavailable_answer: Callable[[], tuple[Response, int]]) -> tuple[Response, int] | None:
    """Admit the job (app.grading.admission stores it, or refuses with 429) and enqueue it; None when handed over.

    Nothing half-way: a job no worker will ever see (the queue refused it) is removed again.
    """
    refused = admit(job)
    if refused is not None:
        return refused
    try:
        get_queue(current_app).enqueue(kind, job.id)
    except Exception:
        log.exception("could not enqueue %s %s", kind, job.id)
        db.session.delete(job)
        db.session.commit()
        return unavailable_answer()
    return None


def _grading_unavailable() -> tuple[Response, int]:
    message = _("Grading is unavailable for a moment, so this submission was not kept. "
                "Your code is still in the editor: wait a minute, then submit again.")
    return unavailable("queue_unavailable", message)  # type: ignore[return-value]


def _running_unavailable() -> tuple[Response, int]:
    return json_error(503, "run_unavailable", _("Running code is unavailable right now. Please try again."))


@bp.post("/exercises/<exercise_id>/submissions")
def submit(exercise_id: str) -> tuple[Response, int] | Response:
    """Store a submission and hand it to the grading queue (202); the page polls /api/submissions/<id>."""
    exercise, refused = _code_exercise(exercise_id, "not_gradable",
                                       _("This exercise is a quiz; it takes answers, not code."))
    if exercise is None:
        return refused  # type: ignore[return-value]
    if is_unavailable(exercise):  # refused, never scored 0: the exercise's own tests are broken
        return json_error(409, "exercise_unavailable", unavailable_message())
    try:
        body = read_body()
        code, lang = read_code(body), _read_lang(body)
    except BadBody as bad:
        return json_error(bad.status, bad.error, bad.message)
    submission = Submission(exercise_id=exercise.id, learner=learner_key(), code=code, lang=lang,
                            status="queued")
    refused = _hand_over("submission", submission, admission.admit, _grading_unavailable)
    if refused is not None:
        return refused
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
    exercise, refused = _code_exercise(exercise_id, "not_runnable",
                                       _("This exercise is a quiz; there is no code to run."))
    if exercise is None:
        return refused  # type: ignore[return-value]
    try:
        body = read_body()
        code = read_code(body)
    except BadBody as bad:
        return json_error(bad.status, bad.error, bad.message)
    learner = learner_key()
    runs.forget(current_app, learner)  # only the latest Run's output is ever shown
    job = Run(exercise_id=exercise.id, learner=learner, code=code, lang=_read_lang(body), status="queued")
    refused = _hand_over("run", job, admission.admit_run, _running_unavailable)
    if refused is not None:
        return refused
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
