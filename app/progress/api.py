"""JSON endpoints of the current learner: the server-side draft and the submission history."""

from __future__ import annotations

from flask import jsonify, request
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from app.accounts.identity import learner_key
from app.bodies import BadBody, read_body, read_code
from app.content import exercise_catalog
from app.errors import json_error
from app.i18n import current_lang
from app.progress import bp, drafts, hints
from app.progress.history import API_PAGE_SIZE, page, summary
from grader.api import Exercise


def _code_exercise(exercise_id: str) -> Exercise | None:
    exercise = exercise_catalog().get(exercise_id)
    return exercise if exercise is not None and exercise.kind.accepts_code else None


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"  # private code: no shared cache keeps it
    return response


def _unknown() -> tuple[Response, int]:
    return json_error(404, "unknown_exercise", _("There is no exercise with this id."))


@bp.get("/api/exercises/<exercise_id>/draft")
def get_draft(exercise_id: str) -> Response | tuple[Response, int]:
    if _code_exercise(exercise_id) is None:
        return _unknown()
    # Only ever the caller's own draft: the learner comes from the session, not the request.
    draft = drafts.load(exercise_id, learner_key())
    body = {"exercise": exercise_id, "code": draft.code if draft else None,
            "updated_at": draft.updated_at.isoformat() if draft else None}
    return _no_store(jsonify(body))


@bp.put("/api/exercises/<exercise_id>/draft")
def put_draft(exercise_id: str) -> Response | tuple[Response, int]:
    exercise = _code_exercise(exercise_id)
    if exercise is None:
        return _unknown()
    try:
        code = read_code(read_body())
    except BadBody as bad:
        return json_error(bad.status, bad.error, bad.message)
    draft = drafts.save(exercise, learner_key(), code)
    body = {"exercise": exercise_id, "saved": draft is not None,
            "updated_at": draft.updated_at.isoformat() if draft else None}
    return _no_store(jsonify(body))


@bp.delete("/api/exercises/<exercise_id>/draft")
def delete_draft(exercise_id: str) -> tuple[str, int] | tuple[Response, int]:
    if _code_exercise(exercise_id) is None:
        return _unknown()
    drafts.forget(exercise_id, learner_key())
    return "", 204


@bp.get("/api/exercises/<exercise_id>/history")
def api_history(exercise_id: str) -> Response | tuple[Response, int]:
    if _code_exercise(exercise_id) is None:
        return _unknown()
    # Newest first, API_PAGE_SIZE at a time; "older" is the ?before= cursor of the next page.
    found = page(learner_key(), exercise_id, before=request.args.get("before"), size=API_PAGE_SIZE)
    return _no_store(jsonify({"exercise": exercise_id, "older": found.older,
                              "submissions": [summary(sub) for sub in found.submissions]}))


@bp.post("/api/exercises/<exercise_id>/hints/<check>/<int:rung>")
def reveal_hint(exercise_id: str, check: str, rung: int) -> Response | tuple[Response, int]:
    """The next rung of a check's hint ladder, in the page's language; the reveal is recorded once."""
    exercise = _code_exercise(exercise_id)
    if exercise is None:
        return _unknown()
    try:
        read_body()  # JSON only: a cross-site form cannot send it (app.crossorigin)
    except BadBody as bad:
        return json_error(bad.status, bad.error, bad.message)
    found = hints.reveal(exercise, check, rung, learner_key(), current_lang())
    if found is None:
        return json_error(404, "no_such_hint", _("This check has no further hint."))
    return _no_store(jsonify(found.to_api()))
