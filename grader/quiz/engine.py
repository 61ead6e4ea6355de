"""Quiz engine: loads quiz.toml, serves questions without their key, grades into results v1."""

from __future__ import annotations

import random
import tomllib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from grader.loader import Exercise, ExerciseLoadError
from grader.quiz.answers import QuizAnswerError, check_answers_shape, is_right, normalize
from grader.quiz.keys import key_problems, points_problems
from grader.quiz.schema import QuizConfig
from grader.results import TestResult, summarize

__all__ = ["QUIZ_FILE", "QuizAnswerError", "grade_quiz", "key_answers", "load_quiz",
           "public_questions", "shuffled_questions", "validate_quiz", "wrong_tries"]

QUIZ_FILE = "quiz.toml"


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


def shuffled_questions(exercise: Exercise, lang: str, seed: str) -> list[dict[str, Any]]:
    """public_questions with each question's choices in an order fixed by seed (one per attempt)."""
    questions = public_questions(exercise, lang)
    for question in questions:
        if "choices" in question:
            # Not a secret: the order only has to differ between attempts, reproducibly.
            random.Random(f"{seed}:{question['id']}").shuffle(question["choices"])  # noqa: S311
    return questions


_VERDICT = {
    True: {"en": "Right.", "ja": "正解です。"},
    False: {"en": "Not quite.", "ja": "不正解です。"},
}
_BLANK = {
    "en": "No answer was given. Answer this question to see its explanation.",
    "ja": "回答がありません。答えを送ると解説が表示されます。",
}


_TRY_AGAIN = {
    "en": "Think it over and try again: the explanation is shown after {left} more wrong "
          "{tries} or a right answer.",
    "ja": "もう一度考えてみましょう。正解するか、あと {left} 回まちがえると解説が表示されます。",
}
_LATE = {
    "en": "Right, after the explanation was shown: no points for this question.",
    "ja": "正解です。ただし解説が表示された後なので、この問題の得点はありません。",
}


def _joined(lang: str, *parts: str) -> str:
    # Japanese sentences follow one another without a space.
    return ("" if lang == "ja" else " ").join(p for p in parts if p)


def grade_quiz(exercise: Exercise, answers: dict[str, Any], lang: str = "en",
               wrong_before: Mapping[str, int] | None = None) -> dict[str, Any]:
    """Grade answers into a results document v1: one test per question, in the file's order.

    wrong_before: question id -> how many wrong answers this learner already gave to it. The
    explanation (it names the right answer) is shown only after a right answer or once the
    quiz's `reveal_after` wrong answers are reached; a right answer given after that earns
    no points. Raises QuizAnswerError before grading anything when an answer cannot be read,
    so a bad request never half-counts.
    """
    quiz = load_quiz(exercise)
    check_answers_shape(quiz, answers)
    wrong_before = wrong_before or {}
    lang = lang if lang in _BLANK else "en"
    given = {q.id: normalize(q, answers.get(q.id)) for q in quiz.questions}
    tests = []
    for question in quiz.questions:
        value = given[question.id]
        right = value is not None and is_right(question, value)
        earlier = wrong_before.get(question.id, 0)
        revealed_before = earlier >= quiz.reveal_after
        explanation = question.explanation.get(lang)
        points = question.points if right and not revealed_before else 0
        if value is None:
            # A blank answer keeps the explanation back: it would give the key away for free.
            message = _BLANK[lang]
        elif right:
            message = _joined(lang, _LATE[lang] if revealed_before else _VERDICT[True][lang],
                              explanation)
        elif earlier + 1 >= quiz.reveal_after:
            message = _joined(lang, _VERDICT[False][lang], explanation)
        else:
            left = quiz.reveal_after - earlier - 1
            hint = _TRY_AGAIN[lang].format(left=left, tries="try" if left == 1 else "tries")
            message = _joined(lang, _VERDICT[False][lang], hint)
        tests.append(
            TestResult(
                name=question.id,
                check=question.id,
                title=question.text.get(lang),
                status="pass" if right else "fail",
                message=message,
                points=points,
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


def wrong_tries(attempts: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, int]:
    """question id -> wrong (not blank) answers over earlier (answers, result) pairs."""
    counts: dict[str, int] = {}
    for answers, result in attempts:
        for test in (result or {}).get("tests") or []:
            qid = test.get("check")
            answered = answers.get(qid) not in (None, "", [])
            if test.get("status") == "fail" and answered:
                counts[qid] = counts.get(qid, 0) + 1
    return counts


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
    itself must earn full marks and blank answers none, through the same grading learners meet;
    exercise.toml's points are the questions' sum, and a numeric key with `compute` code agrees
    with what that code gives (grader.quiz.keys).
    """
    if exercise.config.kind != "quiz":
        return [f"{exercise.id}: not a quiz (kind = '{exercise.config.kind}')"]
    try:
        config = load_quiz(exercise)
        full = grade_quiz(exercise, key_answers(exercise))
        blank = grade_quiz(exercise, {})
    except ExerciseLoadError as exc:
        return [f"{exercise.id}/{exc.file}: {problem}" for problem in exc.problems]
    except QuizAnswerError as exc:
        return [f"{exercise.id}/{QUIZ_FILE}: the key cannot be graded: {exc}"]
    problems = points_problems(config, exercise.config.points, f"{exercise.id}/exercise.toml")
    problems += key_problems(config, f"{exercise.id}/{QUIZ_FILE}")
    if full["status"] != "pass" or full["score"] != 1.0:
        problems.append(f"{exercise.id}/{QUIZ_FILE}: the key does not earn full marks")
    if blank["score"] != 0.0:
        problems.append(f"{exercise.id}/{QUIZ_FILE}: blank answers earn points")
    return problems
