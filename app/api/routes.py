"""JSON endpoints: POST a submission (202, graded off the request thread), GET its state."""

from __future__ import annotations

import json
import logging
from typing import Any

from flask import current_app, jsonify, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from app.api import bp
from app.content import exercise_catalog
from app.errors import json_error
from app.extensions import db
from app.grading.queue import get_queue
from app.i18n import current_lang
from app.models import Submission

log = logging.getLogger(__name__)


class BadSubmission(Exception):
    """A request body the API refuses, with the HTTP status and a message for people."""

    def __init__(self, status: int, error: str, message: str):
        super().__init__(message)
        self.status, self.error, self.message = status, error, message


def _read_body() -> dict[str, Any]:
    if not request.is_json:
        raise BadSubmission(
            400, "not_json", _("Send the code as JSON (Content-Type: application/json).")
        )
    try:
        text = request.get_data(cache=False).decode("utf-8")
    except UnicodeDecodeError:
        raise BadSubmission(400, "not_utf8", _("The request body is not valid UTF-8.")) from None
    try:
        body = json.loads(text)
    except ValueError:
        raise BadSubmission(400, "not_json", _("The request body is not valid JSON.")) from None
    if not isinstance(body, dict):
        raise BadSubmission(400, "not_json", _("The request body must be a JSON object."))
    return body


def _read_code(body: dict[str, Any]) -> str:
    code = body.get("code")
    if not isinstance(code, str):
        raise BadSubmission(400, "bad_code", _("The field 'code' is missing or is not a string."))
    try:
        size = len(code.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate such as "\ud800" from a JSON escape
        raise BadSubmission(400, "not_utf8", _("The code is not valid Unicode text.")) from None
    limit = current_app.config["MAX_CODE_BYTES"]
    if size > limit:
        raise BadSubmission(
            413, "code_too_large",
            _("The code is %(size)d bytes; the limit is %(limit)d bytes.", size=size, limit=limit),
        )
    if "\x00" in code:  # PostgreSQL text columns cannot hold NUL
        raise BadSubmission(400, "bad_code", _("The code contains a NUL character."))
    return code


def _read_lang(body: dict[str, Any]) -> str:
    lang = body.get("lang", current_lang())
    return lang if lang in current_app.config["LANGUAGES"] else current_lang()


@bp.post("/exercises/<exercise_id>/submissions")
def submit(exercise_id: str) -> tuple[Response, int] | Response:
    exercise = exercise_catalog().get(exercise_id)
    if exercise is None:
        return json_error(404, "unknown_exercise", _("There is no exercise with this id."))
    if exercise.config.kind != "code":
        message = _("This exercise is a quiz; it takes answers, not code.")
        return json_error(400, "not_gradable", message)
    try:
        body = _read_body()
        code, lang = _read_code(body), _read_lang(body)
    except BadSubmission as bad:
        return json_error(bad.status, bad.error, bad.message)
    submission = Submission(exercise_id=exercise.id, code=code, lang=lang, status="queued")
    db.session.add(submission)
    db.session.commit()
    try:
        get_queue(current_app).enqueue(submission.id)
    except Exception:
        # Nothing half-way: a submission no worker will ever see is removed again.
        log.exception("could not enqueue submission %s", submission.id)
        db.session.delete(submission)
        db.session.commit()
        message = _("Grading is unavailable right now. Please try again.")
        return json_error(503, "queue_unavailable", message)
    response = jsonify({"id": submission.id, "status": "queued"})
    response.headers["Location"] = url_for("api.submission", submission_id=submission.id)
    return response, 202


@bp.get("/submissions/<submission_id>")
def submission(submission_id: str) -> tuple[Response, int] | Response:
    found = db.session.get(Submission, submission_id)
    if found is None:
        return json_error(404, "unknown_submission", _("There is no submission with this id."))
    response = jsonify(found.to_api())
    response.headers["Cache-Control"] = "no-store"
    return response
