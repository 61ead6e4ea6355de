"""Grading quiz answers: public questions without keys, results v1, and refused answers."""

from __future__ import annotations

import json

import pytest

from grader.quiz import QuizAnswerError, grade_quiz, key_answers, public_questions
from grader.results import validate_document

RIGHT = {"pick-one": "b", "pick-many": ["z", "x"], "how-many": 2.5}


def by_check(doc: dict) -> dict[str, dict]:
    return {test["check"]: test for test in doc["tests"]}


def test_public_questions_carry_no_key_and_no_explanation(quiz):
    questions = public_questions(quiz, "en")
    assert [q["id"] for q in questions] == ["pick-one", "pick-many", "how-many"]
    assert questions[0]["choices"] == [{"id": "a", "text": "Alpha"}, {"id": "b", "text": "Beta"}]
    assert "choices" not in questions[2]
    text = json.dumps(questions)
    assert "answer" not in text and "EXPLAINED" not in text and "2.5" not in text
    assert "tolerance" not in text


def test_public_questions_in_japanese(quiz):
    questions = public_questions(quiz, "ja")
    assert questions[0]["text"] == "1 つ選んでください"
    assert questions[1]["choices"][0]["text"] == "エックス"


def test_all_right_passes_with_full_score(quiz):
    doc = validate_document(grade_quiz(quiz, RIGHT, "en"))
    assert doc["status"] == "pass" and doc["score"] == 1.0
    assert [t["check"] for t in doc["tests"]] == ["pick-one", "pick-many", "how-many"]
    assert doc["tests"][2]["points"] == 2 and doc["tests"][2]["max_points"] == 2
    assert doc["tests"][0]["message"] == "Right. Because B-EXPLAINED."
    assert doc["message"] == "3 of 3 questions right."


def test_wrong_answers_fail_and_keep_the_explanation_back_until_enough_tries(quiz):
    answers = {"pick-one": "a", "pick-many": ["x"], "how-many": 3}
    doc = grade_quiz(quiz, answers, "en")
    assert doc["status"] == "fail" and doc["score"] == 0.0
    tests = by_check(doc)
    # First wrong try (reveal_after defaults to 2): no explanation, it names the right answer.
    assert "B-EXPLAINED" not in tests["pick-one"]["message"]
    assert "1 more wrong try" in tests["pick-one"]["message"]
    second = by_check(grade_quiz(quiz, answers, "en", wrong_before={"pick-one": 1}))
    assert second["pick-one"]["message"] == "Not quite. Because B-EXPLAINED."
    assert tests["pick-many"]["status"] == "fail"  # a subset of the key is not enough
    assert tests["how-many"]["title"] == "How many?"


def test_partial_score_weights_points(quiz):
    doc = grade_quiz(quiz, {"pick-one": "a", "pick-many": ["x", "z"], "how-many": "2.5"})
    assert doc["score"] == pytest.approx(3 / 4, abs=1e-4)


@pytest.mark.parametrize(
    ("given", "right"),
    [(2.5, True), (2.6, True), (2.4, True), (2.61, False), ("2.55", True), (" 2.45 ", True),
     (2, False), ("3", False)],
)
def test_numeric_tolerance(quiz, given, right):
    status = by_check(grade_quiz(quiz, {"how-many": given}))["how-many"]["status"]
    assert status == ("pass" if right else "fail")


def test_exact_key_accepts_float_rounding(make_quiz, sample):
    exercise = make_quiz(sample.replace("answer = 2.5\ntolerance = 0.1", "answer = 0.3"))
    assert by_check(grade_quiz(exercise, {"how-many": 0.1 + 0.2}))["how-many"]["status"] == "pass"
    assert by_check(grade_quiz(exercise, {"how-many": 0.3001}))["how-many"]["status"] == "fail"


def test_blank_answers_fail_without_revealing_the_explanation(quiz):
    doc = grade_quiz(quiz, {"pick-one": "", "pick-many": [], "how-many": "  "}, "en")
    assert doc["score"] == 0.0
    assert all(t["status"] == "fail" for t in doc["tests"])
    assert "EXPLAINED" not in json.dumps(doc)
    assert "No answer" in doc["tests"][0]["message"]


def test_japanese_messages(quiz):
    doc = grade_quiz(quiz, {"pick-one": "b"}, "ja")
    tests = by_check(doc)
    assert tests["pick-one"]["message"] == "正解です。B だからです。"
    assert tests["pick-one"]["title"] == "1 つ選んでください"
    assert tests["how-many"]["message"].startswith("回答がありません")
    assert doc["message"] == "1 / 3 問正解です。"


@pytest.mark.parametrize(
    ("answers", "question", "fragment"),
    [
        ({"nope": "a"}, "nope", "no question 'nope'"),
        ({"pick-one": "c"}, "pick-one", "no choice 'c'"),
        ({"pick-one": ["b"]}, "pick-one", "one choice id"),
        ({"pick-one": 1}, "pick-one", "one choice id"),
        ({"pick-many": "x"}, "pick-many", "list of choice ids"),
        ({"pick-many": ["x", "w"]}, "pick-many", "no choice 'w'"),
        ({"pick-many": [1]}, "pick-many", "list of choice ids"),
        ({"how-many": "lots"}, "how-many", "finite number"),
        ({"how-many": True}, "how-many", "finite number"),
        ({"how-many": "nan"}, "how-many", "finite number"),
        ({"how-many": float("inf")}, "how-many", "finite number"),
        ({"how-many": [2.5]}, "how-many", "finite number"),
    ],
)
def test_unreadable_answers_raise_quiz_answer_error(quiz, answers, question, fragment):
    with pytest.raises(QuizAnswerError) as caught:
        grade_quiz(quiz, answers)
    assert caught.value.question == question
    assert fragment in str(caught.value)
    assert caught.value.message("ja") != caught.value.message("en")


def test_answers_must_be_a_mapping(quiz):
    with pytest.raises(QuizAnswerError, match="object mapping question ids"):
        grade_quiz(quiz, ["b"])  # type: ignore[arg-type]


def test_key_answers_round_trip_through_json(quiz):
    # key_answers is what `grader validate` grades: it must survive the JSON API's encoding.
    answers = json.loads(json.dumps(key_answers(quiz)))
    assert grade_quiz(quiz, answers)["score"] == 1.0


def test_a_right_answer_after_the_reveal_earns_no_points(quiz):
    key = {"pick-one": "b", "pick-many": ["x", "z"], "how-many": 2.5}
    doc = grade_quiz(quiz, key, "en", wrong_before={"pick-one": 2})
    tests = by_check(doc)
    assert tests["pick-one"]["status"] == "pass" and tests["pick-one"]["points"] == 0
    assert "no points" in tests["pick-one"]["message"]
    assert doc["score"] < 1.0


def test_wrong_tries_count_only_answered_wrong_questions():
    from grader.quiz import wrong_tries
    result = {"tests": [{"check": "a", "status": "fail"}, {"check": "b", "status": "fail"},
                        {"check": "c", "status": "pass"}]}
    assert wrong_tries([({"a": "x", "b": ""}, result), ({"a": "y"}, result)]) == {"a": 2}


def test_shuffled_choices_depend_on_the_seed_and_keep_every_choice(quiz):
    from grader.quiz import public_questions, shuffled_questions
    plain = {q["id"]: [c["id"] for c in q.get("choices", [])] for q in public_questions(quiz)}
    orders = set()
    for seed in range(12):
        got = {q["id"]: [c["id"] for c in q.get("choices", [])]
               for q in shuffled_questions(quiz, "en", f"learner:{seed}")}
        assert {k: sorted(v) for k, v in got.items()} == {k: sorted(v) for k, v in plain.items()}
        orders.add(tuple(tuple(v) for v in got.values()))
        assert got == {q["id"]: [c["id"] for c in q.get("choices", [])]
                       for q in shuffled_questions(quiz, "en", f"learner:{seed}")}
    assert len(orders) > 1
