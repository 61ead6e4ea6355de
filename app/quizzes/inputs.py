"""Quiz answers as the web layer stores them: checked, normalised (numbers as numbers), bounded."""

from __future__ import annotations

import math
from typing import Any

from grader.api import QuizAnswerError

# A choice id or a typed number longer than this is never a real answer; refusing it keeps
# every stored attempt small and every echoed error message short.
MAX_ANSWER_CHARS = 64
# Beyond 2**53 a float no longer holds every integer; such numbers are stored as floats.
EXACT_INT = 2**53


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 20 else text[:20] + "…"


def _invalid_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a JSON \ud800 escape
        return True
    return "\x00" in value or len(value.strip()) > MAX_ANSWER_CHARS


def _number(qid: str, value: Any) -> int | float | None:
    """A typed or sent number as an int or a float; None when left blank."""
    wrong = QuizAnswerError(
        f"Question '{qid}' takes a number, such as 32 or 0.5.",
        f"問題「{qid}」の答えは 32 や 0.5 のような数値で送ってください。",
        question=qid)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise wrong
    if isinstance(value, str):
        if not value.strip():
            return None
        if _invalid_text(value):
            raise wrong
        try:
            value = float(value.strip().replace(",", ""))
        except ValueError:
            raise wrong from None
    try:
        number = float(value)  # OverflowError for an int of 400 digits
    except OverflowError:
        raise wrong from None
    if not math.isfinite(number):
        raise wrong
    return int(number) if number.is_integer() and abs(number) < EXACT_INT else number


def _choice(qid: str, value: Any) -> str:
    if not isinstance(value, str) or _invalid_text(value):
        raise QuizAnswerError(
            f"Question '{qid}' takes the id of one of its choices.",
            f"問題「{qid}」の答えは選択肢の id で送ってください。",
            question=qid)
    return value.strip()


def normalize_answers(questions: list[dict[str, Any]], raw: Any) -> dict[str, Any]:
    """The answers to store and grade: one entry per known question, blanks left out.

    Raises QuizAnswerError (English and Japanese) for anything that is not an answer, so a
    bad request stores nothing.
    """
    if not isinstance(raw, dict):
        raise QuizAnswerError(
            "Answers must be an object mapping question ids to answers.",
            "回答は、問題の id から答えへの対応 (オブジェクト) で送ってください。")
    kinds = {q["id"]: q["kind"] for q in questions}
    unknown = [key for key in raw if key not in kinds]
    if unknown:
        key = _short(unknown[0])
        raise QuizAnswerError(f"This quiz has no question '{key}'.",
                              f"このクイズに問題「{key}」はありません。",
                              question=unknown[0] if key == unknown[0] else None)
    answers: dict[str, Any] = {}
    for qid, value in raw.items():
        kind = kinds[qid]
        if value is None or value == []:
            continue
        if kind == "numeric":
            number = _number(qid, value)
            if number is not None:
                answers[qid] = number
        elif kind == "multiple":
            if not isinstance(value, list) or len(value) > 64:
                raise QuizAnswerError(
                    f"Question '{qid}' takes a list of choice ids.",
                    f"問題「{qid}」の答えは選択肢の id のリストで送ってください。", question=qid)
            picked = sorted({_choice(qid, item) for item in value})
            if picked:
                answers[qid] = picked
        else:
            choice = _choice(qid, value)
            if choice:
                answers[qid] = choice
    return answers
