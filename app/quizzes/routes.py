"""Quiz pages: questions in the learner's language, a CSRF-protected form, graded on the server."""

from __future__ import annotations

import logging
from typing import Any

from flask import abort, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf.csrf import CSRFError, ValidationError, validate_csrf
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers import Response

from app.content import exercise_catalog, lesson_catalog, render_cache
from app.content.markdown import inline_markdown
from app.i18n import current_lang
from app.quizzes import attempts, bp
from app.quizzes.inputs import normalize_answers
from grader.api import (
    Exercise,
    ExerciseLoadError,
    QuizAnswerError,
    grade_quiz,
    load_quiz,
    public_questions,
    shuffled_questions,
    wrong_tries,
)

# Also the API's answer (app.quizzes.api), in the language the answers were sent in.
EMPTY = _l("No question was answered. Choose or type at least one answer, then check.")

log = logging.getLogger(__name__)
CSRF_FIELD = "csrf_token"


def quiz_or_none(quiz_id: str) -> Exercise | None:
    """The quiz of that id, or None for an unknown id, a code exercise or a broken quiz.toml."""
    exercise = exercise_catalog().get(quiz_id)
    if exercise is None or exercise.config.kind != "quiz":
        return None
    try:
        public_questions(exercise)
    except ExerciseLoadError as exc:
        # An instructor's broken quiz is logged and hidden, like a broken exercise folder.
        log.warning("quiz skipped: %s", exc)
        return None
    return exercise


def answers_from_form(questions: list[dict[str, Any]], form: MultiDict[str, str]) -> dict[str, Any]:
    """The form's fields as grade_quiz wants them; unknown fields are kept so they are refused."""
    kinds = {q["id"]: q["kind"] for q in questions}
    answers: dict[str, Any] = {}
    for key in form:
        if key == CSRF_FIELD:
            continue
        answers[key] = form.getlist(key) if kinds.get(key) == "multiple" else form.get(key)
    return answers


def prefill(questions: list[dict[str, Any]], answers: dict[str, Any]) -> dict[str, Any]:
    """What each input shows: a set of chosen ids, or the typed text; junk shows as blank."""
    shown: dict[str, Any] = {}
    for question in questions:
        value = answers.get(question["id"])
        if question["kind"] == "numeric":
            ok = isinstance(value, (str, int, float)) and not isinstance(value, bool)
            shown[question["id"]] = str(value) if ok else ""
        elif isinstance(value, str):
            shown[question["id"]] = {value}
        elif isinstance(value, list):
            shown[question["id"]] = {v for v in value if isinstance(v, str)}
        else:
            shown[question["id"]] = set()
    return shown


def is_blank(answers: dict[str, Any]) -> bool:
    """True when no question got an answer: such a submit is refused, never recorded as 0%."""
    return all(value in (None, "", []) or (isinstance(value, str) and not value.strip())
               for value in answers.values())


def grade_for(exercise: Exercise, learner: str, answers: dict[str, Any], lang: str
              ) -> dict[str, Any]:
    """Grade with this learner's earlier wrong tries, so explanations follow the reveal rule."""
    return grade_quiz(exercise, answers, lang,
                      wrong_before=wrong_tries(attempts.earlier(exercise.id, learner)))


def _neighbours(exercise: Exercise) -> tuple[Exercise | None, Exercise | None]:
    siblings = exercise_catalog().for_lesson(exercise.config.lesson)
    at = [item.id for item in siblings].index(exercise.id)
    return (siblings[at - 1] if at > 0 else None,
            siblings[at + 1] if at + 1 < len(siblings) else None)


def _page(exercise: Exercise, *, attempt: attempts.QuizAttempt | None = None,
          answers: dict[str, Any] | None = None, error: str = "", status: int = 200
          ) -> tuple[str, int]:
    lang = current_lang()
    learner = attempts.learner_key()
    lesson = next((item for item in lesson_catalog().all(lang)
                   if item.number == exercise.config.lesson), None)
    prompt = exercise.localized_file("prompt", lang)
    results = {test["check"]: test for test in attempt.result["tests"]} if attempt else {}
    scores = attempts.scores(exercise.id, learner)
    # Choices in a new order for each attempt: position says nothing about the right one.
    questions = shuffled_questions(exercise, lang, f"{learner}:{exercise.id}:{scores.attempts}")
    if answers is None:
        answers = attempt.answers if attempt else {}
    before, after = _neighbours(exercise)
    html = render_template(
        "quizzes/quiz.html",
        exercise=exercise,
        title=exercise.config.title.get(lang),
        lesson=lesson,
        prompt_html=render_cache().get(prompt).html if prompt else "",
        questions=questions,
        shown=prefill(questions, answers),
        attempt=attempt,
        results=results,
        scores=scores,
        error=error,
        reveal_after=load_quiz(exercise).reveal_after,
        before=before,
        after=after,
        md=inline_markdown,
    )
    return html, status


@bp.get("/quizzes/<quiz_id>")
def show(quiz_id: str) -> tuple[str, int]:
    exercise = quiz_or_none(quiz_id)
    if exercise is None:
        abort(404)
    attempt = None
    attempt_id = request.args.get("attempt")
    if attempt_id:
        attempt = attempts.find(attempt_id, exercise.id, attempts.learner_key())
    return _page(exercise, attempt=attempt)


@bp.post("/quizzes/<quiz_id>")
def answer(quiz_id: str) -> Response | tuple[str, int]:
    exercise = quiz_or_none(quiz_id)
    if exercise is None:
        abort(404)
    lang = current_lang()
    questions = public_questions(exercise, lang)
    answers = answers_from_form(questions, request.form)
    try:
        validate_csrf(request.form.get(CSRF_FIELD))
    except (ValidationError, CSRFError):
        expired = _("The form expired or did not come from this page. Reload the page and try again.")
        return _page(exercise, answers=answers, error=expired, status=400)
    if is_blank(answers):
        return _page(exercise, answers={}, error=str(EMPTY), status=400)
    learner = attempts.learner_key()
    try:
        answers = normalize_answers(questions, answers)
        result = grade_for(exercise, learner, answers, lang)
    except QuizAnswerError as exc:
        return _page(exercise, answers={}, error=exc.message(lang), status=400)
    attempt = attempts.record(exercise.id, learner, answers, result, lang)
    # Post/redirect/get: reloading the result page does not send the answers again.
    target = url_for("quizzes.show", quiz_id=exercise.id, attempt=attempt.id, _anchor="result")
    return redirect(target, code=303)
