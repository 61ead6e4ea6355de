"""The quiz JSON API: the public questions, and answers graded into a results document."""

from __future__ import annotations

from typing import Any

from flask import current_app, jsonify
from flask_babel import force_locale
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from app.bodies import BadBody, read_body
from app.errors import json_error
from app.i18n import current_lang
from app.quizzes import attempts, bp
from app.quizzes.inputs import normalize_answers
from app.quizzes.routes import EMPTY, grade_for, is_blank, quiz_or_none
from grader.api import QuizAnswerError, public_questions, shuffled_questions


def _lang(body: dict[str, Any]) -> str:
    lang = body.get("lang")
    return lang if lang in current_app.config["LANGUAGES"] else current_lang()


def _body() -> dict[str, Any] | None:
    # JSON only: a cross-site HTML form cannot send application/json without a CORS preflight,
    # which this site never grants, so the content type itself guards against CSRF here.
    try:
        return read_body()  # also refuses deep nesting (RecursionError) and huge integers
    except BadBody:
        return None


@bp.get("/api/quizzes/<quiz_id>")
def api_questions(quiz_id: str) -> Response | tuple[Response, int]:
    exercise = quiz_or_none(quiz_id)
    lang = current_lang()
    if exercise is None:
        return json_error(404, "unknown_quiz", _("There is no quiz with this id."))
    learner = attempts.learner_key()
    scores = attempts.scores(exercise.id, learner)
    questions = shuffled_questions(exercise, lang, f"{learner}:{exercise.id}:{scores.attempts}")
    return jsonify({"id": exercise.id, "title": exercise.config.title.get(lang),
                    "questions": questions, **scores.to_api()})


@bp.post("/api/quizzes/<quiz_id>/answers")
def api_answers(quiz_id: str) -> Response | tuple[Response, int]:
    exercise = quiz_or_none(quiz_id)
    if exercise is None:
        return json_error(404, "unknown_quiz", _("There is no quiz with this id."))
    body = _body()
    if body is None or not isinstance(body.get("answers"), dict):
        return json_error(400, "not_json",
                          _("Send the answers as a JSON object: {\"answers\": {question id: answer}}."))
    lang = _lang(body)
    learner = attempts.learner_key()
    if is_blank(body["answers"]):
        with force_locale(lang):  # the language the answers were sent in
            message = str(EMPTY)
        return json_error(400, "empty_answers", message)
    try:
        # Stored as normalised: numbers as numbers, blanks dropped, nothing unbounded.
        answers = normalize_answers(public_questions(exercise), body["answers"])
        result = grade_for(exercise, learner, answers, lang)
    except QuizAnswerError as exc:
        # json_error's body plus the question at fault, so a client can mark it.
        return jsonify({"error": "bad_answer", "message": exc.message(lang),
                        "question": exc.question}), 400
    attempt = attempts.record(exercise.id, learner, answers, result, lang)
    response = jsonify({"attempt": attempt.id, "result": result,
                        **attempts.scores(exercise.id, learner).to_api()})
    response.headers["Cache-Control"] = "no-store"
    return response
