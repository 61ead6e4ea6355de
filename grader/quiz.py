"""Quiz engine: loads quiz.toml, serves questions without their key, grades into results v1."""

from __future__ import annotations

import math
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from grader.loader import Exercise, ExerciseLoadError
from grader.quiz_schema import Question, QuizConfig
from grader.results import TestResult, summarize

QUIZ_FILE = "quiz.toml"
# Numbers typed by a learner rarely equal a float key bit for bit (0.1 + 0.2), so a key with no
# tolerance still accepts a relative error this small.
RELATIVE_SLACK = 1e-9


class QuizAnswerError(ValueError):
    """Answers that cannot be graded: unknown question or choice, or a value of the wrong type."""

    def __init__(self, en: str, ja: str, *, question: str | None = None):
        self.messages = {"en": en, "ja": ja}
        self.question = question
        super().__init__(en)

    def message(self, lang: str = "en") -> str:
        return self.messages.get(lang, self.messages["en"])


def _where(loc: tuple[Any, ...], raw: dict[str, Any]) -> str:
    """'questions[2] (id 'x').answer' for a pydantic location, so authors find the question."""
    parts: list[str] = []
    node: Any = raw
    for part in loc:
        if isinstance(part, int) and parts:
            label = f"{parts.pop()}[{part}]"
            item = node[part] if isinstance(node, list) and part < len(node) else None
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                label += f" (id '{item['id']}')"
            parts.append(label)
            node = item
        else:
            parts.append(str(part))
            node = node.get(part) if isinstance(node, dict) else None
    return ".".join(parts) or "(top level)"


def _parse(path: Path) -> QuizConfig:
    folder = path.parent
    if not path.is_file():
        raise ExerciseLoadError(folder, QUIZ_FILE, ["file is missing"])
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ExerciseLoadError(folder, QUIZ_FILE, [f"not valid TOML: {exc}"]) from exc
    try:
        return QuizConfig.model_validate(raw)
    except ValidationError as exc:
        problems = [
            f"field '{_where(tuple(item['loc']), raw)}': {item['msg']}" for item in exc.errors()
        ]
        raise ExerciseLoadError(folder, QUIZ_FILE, problems) from exc


@lru_cache(maxsize=64)
def _cached(path: str, mtime_ns: int) -> QuizConfig:
    # The modification time is part of the key so an edited quiz.toml is read again.
    return _parse(Path(path))


def load_quiz(exercise: Exercise) -> QuizConfig:
    """The validated quiz of an exercise folder, or ExerciseLoadError naming file and field."""
    path = exercise.path / QUIZ_FILE
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return _parse(path)  # raises the "file is missing" error
    return _cached(str(path), mtime)


def public_questions(exercise: Exercise, lang: str = "en") -> list[dict[str, Any]]:
    """The questions as a learner may see them before answering: no key, no explanation."""
    questions = []
    for question in load_quiz(exercise).questions:
        entry: dict[str, Any] = {
            "id": question.id,
            "kind": question.kind,
            "text": question.text.get(lang),
            "points": question.points,
        }
        if question.kind != "numeric":
            entry["choices"] = [{"id": c.id, "text": c.text.get(lang)} for c in question.choices]
        questions.append(entry)
    return questions


def _normalize(question: Question, value: Any) -> str | frozenset[str] | float | None:
    """The learner's answer in a comparable form; None when the question was left blank."""
    qid = question.id
    if value is None or value == [] or (isinstance(value, str) and not value.strip()):
        return None
    choice_ids = {c.id for c in question.choices}
    if question.kind == "single":
        if not isinstance(value, str):
            raise QuizAnswerError(
                f"Question '{qid}' takes one choice id as a string.",
                f"問題「{qid}」の答えは選択肢の id を 1 つ、文字列で送ってください。",
                question=qid,
            )
        picked = [value]
    elif question.kind == "multiple":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise QuizAnswerError(
                f"Question '{qid}' takes a list of choice ids.",
                f"問題「{qid}」の答えは選択肢の id のリストで送ってください。",
                question=qid,
            )
        picked = value
    else:
        return _number(qid, value)
    unknown = sorted(set(picked) - choice_ids)
    if unknown:
        raise QuizAnswerError(
            f"Question '{qid}' has no choice '{unknown[0]}'.",
            f"問題「{qid}」に選択肢「{unknown[0]}」はありません。",
            question=qid,
        )
    return picked[0] if question.kind == "single" else frozenset(picked)


def _number(qid: str, value: Any) -> float:
    # Forms send text, the JSON API numbers; bool is excluded because True is 1 in Python.
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip().replace(",", ""))
        except ValueError:
            number = None
    if number is None or not math.isfinite(number):
        raise QuizAnswerError(
            f"Question '{qid}' takes a finite number.",
            f"問題「{qid}」の答えは有限の数値で送ってください。",
            question=qid,
        )
    return number


def _is_right(question: Question, given: str | frozenset[str] | float) -> bool:
    if question.kind == "numeric":
        assert isinstance(question.answer, float) and isinstance(given, float)
        slack = question.tolerance + RELATIVE_SLACK * max(1.0, abs(question.answer))
        return abs(given - question.answer) <= slack
    if question.kind == "single":
        return given == question.answer
    return given == question.key_ids


_VERDICT = {
    True: {"en": "Right.", "ja": "正解です。"},
    False: {"en": "Not quite.", "ja": "不正解です。"},
}
_BLANK = {
    "en": "No answer was given. Answer this question to see its explanation.",
    "ja": "回答がありません。答えを送ると解説が表示されます。",
}


def _check_answers_shape(quiz: QuizConfig, answers: Any) -> None:
    if not isinstance(answers, dict):
        raise QuizAnswerError(
            "Answers must be an object mapping question ids to answers.",
            "回答は、問題の id から答えへの対応 (オブジェクト) で送ってください。",
        )
    unknown = sorted(str(key) for key in answers if quiz.question(str(key)) is None)
    if unknown:
        raise QuizAnswerError(
            f"This quiz has no question '{unknown[0]}'.",
            f"このクイズに問題「{unknown[0]}」はありません。",
            question=unknown[0],
        )


def grade_quiz(exercise: Exercise, answers: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    """Grade answers into a results document v1: one test per question, in the file's order.

    Raises QuizAnswerError before grading anything when an answer cannot be read, so a bad
    request never half-counts.
    """
    quiz = load_quiz(exercise)
    _check_answers_shape(quiz, answers)
    given = {q.id: _normalize(q, answers.get(q.id)) for q in quiz.questions}
    tests = []
    for question in quiz.questions:
        value = given[question.id]
        right = value is not None and _is_right(question, value)
        if value is None:
            # A blank answer keeps the explanation back: it would give the key away for free.
            message = _BLANK[lang if lang in _BLANK else "en"]
        else:
            verdict = _VERDICT[right].get(lang, _VERDICT[right]["en"])
            # Japanese sentences follow one another without a space.
            joiner = "" if lang == "ja" else " "
            message = f"{verdict}{joiner}{question.explanation.get(lang)}"
        tests.append(
            TestResult(
                name=question.id,
                check=question.id,
                title=question.text.get(lang),
                status="pass" if right else "fail",
                message=message,
                points=question.points if right else 0,
                max_points=question.points,
            )
        )
    right_count = sum(t.status == "pass" for t in tests)
    summary = (
        f"{right_count} / {len(tests)} 問正解です。"
        if lang == "ja"
        else f"{right_count} of {len(tests)} questions right."
    )
    return summarize(exercise.id, tests, message=summary).to_dict()


def key_answers(exercise: Exercise) -> dict[str, Any]:
    """The answers the key expects, shaped as a learner would send them (for checks and tests)."""
    answers: dict[str, Any] = {}
    for question in load_quiz(exercise).questions:
        if question.kind == "multiple":
            answers[question.id] = sorted(question.key_ids)
        else:
            answers[question.id] = question.answer
    return answers


def validate_quiz(exercise: Exercise) -> list[str]:
    """Problems of a quiz folder for `python -m grader validate`; an empty list means it is usable.

    Beyond the schema (which already checks that every key names existing choices), the key
    itself must earn full marks and blank answers none, through the same grading learners meet.
    """
    if exercise.config.kind != "quiz":
        return [f"{exercise.id}: not a quiz (kind = '{exercise.config.kind}')"]
    try:
        load_quiz(exercise)
        full = grade_quiz(exercise, key_answers(exercise))
        blank = grade_quiz(exercise, {})
    except ExerciseLoadError as exc:
        return [f"{exercise.id}/{exc.file}: {problem}" for problem in exc.problems]
    except QuizAnswerError as exc:
        return [f"{exercise.id}/{QUIZ_FILE}: the key cannot be graded: {exc}"]
    problems = []
    if full["status"] != "pass" or full["score"] != 1.0:
        problems.append(f"{exercise.id}/{QUIZ_FILE}: the key does not earn full marks")
    if blank["score"] != 0.0:
        problems.append(f"{exercise.id}/{QUIZ_FILE}: blank answers earn points")
    return problems
