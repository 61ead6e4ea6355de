"""The quiz JSON API: the public questions, and answers graded into a results document."""

from __future__ import annotations

import json
from typing import Any

from flask import current_app, jsonify, request
from werkzeug.wrappers import Response

from app.errors import json_error
from app.i18n import current_lang
from app.quizzes import attempts, bp
from app.quizzes.routes import quiz_or_none
from app.quizzes.strings import text
from grader.api import QuizAnswerError, grade_quiz, public_questions


def _lang(body: dict[str, Any]) -> str:
    lang = body.get("lang")
    return lang if lang in current_app.config["LANGUAGES"] else current_lang()


def _body() -> dict[str, Any] | None:
    # JSON only: a cross-site HTML form cannot send application/json without a CORS preflight,
    # which this site never grants, so the content type itself guards against CSRF here.
    if not request.is_json:
        return None
    try:
        body = json.loads(request.get_data(cache=False).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return body if isinstance(body, dict) else None


@bp.get("/api/quizzes/<quiz_id>")
def api_questions(quiz_id: str) -> Response | tuple[Response, int]:
    exercise = quiz_or_none(quiz_id)
    lang = current_lang()
    if exercise is None:
        return json_error(404, "unknown_quiz", text("no_quiz", lang))
    scores = attempts.scores(exercise.id, attempts.learner_key())
    return jsonify({"id": exercise.id, "title": exercise.config.title.get(lang),
                    "questions": public_questions(exercise, lang), **scores.to_api()})


@bp.post("/api/quizzes/<quiz_id>/answers")
def api_answers(quiz_id: str) -> Response | tuple[Response, int]:
    exercise = quiz_or_none(quiz_id)
    if exercise is None:
        return json_error(404, "unknown_quiz", text("no_quiz", current_lang()))
    body = _body()
    if body is None or not isinstance(body.get("answers"), dict):
        return json_error(400, "not_json", text("not_json", current_lang()))
    lang = _lang(body)
    try:
        result = grade_quiz(exercise, body["answers"], lang)
    except QuizAnswerError as exc:
        # json_error's body plus the question at fault, so a client can mark it.
        return jsonify({"error": "bad_answer", "message": exc.message(lang),
                        "question": exc.question}), 400
    learner = attempts.learner_key()
    attempt = attempts.record(exercise.id, learner, body["answers"], result, lang)
    response = jsonify({"attempt": attempt.id, "result": result,
                        **attempts.scores(exercise.id, learner).to_api()})
    response.headers["Cache-Control"] = "no-store"
    return response
