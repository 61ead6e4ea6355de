"""Reading a learner's quiz answers: type checks with bilingual errors, then right or wrong."""

from __future__ import annotations

import math
from typing import Any

from grader.quiz.schema import Question, QuizConfig

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


def check_answers_shape(quiz: QuizConfig, answers: Any) -> None:
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


def normalize(question: Question, value: Any) -> str | frozenset[str] | float | None:
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


def is_right(question: Question, given: str | frozenset[str] | float) -> bool:
    if question.kind == "numeric":
        assert isinstance(question.answer, float) and isinstance(given, float)
        slack = question.tolerance + RELATIVE_SLACK * max(1.0, abs(question.answer))
        return abs(given - question.answer) <= slack
    if question.kind == "single":
        return given == question.answer
    return given == question.key_ids
