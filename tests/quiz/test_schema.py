"""quiz.toml validation: a broken quiz names the file, the question and the field."""

from __future__ import annotations

import os

import pytest

from grader.loader import ExerciseLoadError
from grader.quiz import load_quiz, validate_quiz


def problems_of(make_quiz, text: str) -> list[str]:
    exercise = make_quiz(text)
    with pytest.raises(ExerciseLoadError) as caught:
        load_quiz(exercise)
    assert caught.value.file == "quiz.toml"
    return caught.value.problems


def test_sample_loads_with_typed_keys(quiz):
    loaded = load_quiz(quiz)
    assert [q.kind for q in loaded.questions] == ["single", "multiple", "numeric"]
    assert loaded.question("pick-many").key_ids == {"x", "z"}
    assert loaded.question("how-many").answer == 2.5
    assert validate_quiz(quiz) == []


def test_key_naming_a_missing_choice_is_reported_with_question_id(make_quiz, sample):
    problems = problems_of(make_quiz, sample.replace('answer = "b"', 'answer = "q"'))
    assert len(problems) == 1
    assert "questions[0] (id 'pick-one')" in problems[0]
    assert "choice ids that do not exist: q" in problems[0]


def test_multiple_key_must_be_a_list(make_quiz, sample):
    problems = problems_of(make_quiz, sample.replace('answer = ["x", "z"]', 'answer = "x"'))
    assert "(id 'pick-many')" in problems[0] and "non-empty list" in problems[0]


def test_numeric_key_must_be_a_number(make_quiz, sample):
    problems = problems_of(make_quiz, sample.replace("answer = 2.5", 'answer = "2.5"'))
    assert "(id 'how-many')" in problems[0] and "must be a number" in problems[0]


def test_boolean_key_is_refused(make_quiz, sample):
    problems = problems_of(make_quiz, sample.replace("answer = 2.5", "answer = true"))
    assert "questions[2] (id 'how-many').answer" in problems[0]


def test_missing_japanese_explanation_names_the_field(make_quiz, sample):
    text = sample.replace(', ja = "X と Z です。"', "")
    problems = problems_of(make_quiz, text)
    assert problems == ["field 'questions[1] (id 'pick-many').explanation.ja': Field required"]


def test_duplicate_ids_are_refused(make_quiz, sample):
    problems = problems_of(make_quiz, sample.replace('id = "pick-many"', 'id = "pick-one"'))
    assert "duplicate question ids: pick-one" in problems[0]
    problems = problems_of(make_quiz, sample.replace('id = "y"', 'id = "x"'))
    assert "duplicate choice ids: x" in problems[0]


def test_unknown_field_is_refused(make_quiz, sample):
    problems = problems_of(make_quiz, sample.replace("points = 2", "pionts = 2"))
    assert "questions[2] (id 'how-many').pionts" in problems[0]


def test_a_choice_question_needs_two_choices_and_no_tolerance(make_quiz, sample):
    one_choice = sample.replace('  { id = "a", text = { en = "Alpha", ja = "アルファ" } },\n', "")
    assert "at least two choices" in problems_of(make_quiz, one_choice)[0]


def test_invalid_toml_and_missing_file(make_quiz, sample, tmp_path):
    assert problems_of(make_quiz, "[[questions]\n")[0].startswith("not valid TOML")
    exercise = make_quiz(sample, exercise_id="quiz-gone")
    (exercise.path / "quiz.toml").unlink()
    assert validate_quiz(exercise) == ["quiz-gone/quiz.toml: file is missing"]


def test_validate_quiz_lists_problems_instead_of_raising(make_quiz, sample):
    exercise = make_quiz(sample.replace('answer = "b"', 'answer = "q"'))
    problems = validate_quiz(exercise)
    assert len(problems) == 1 and problems[0].startswith("quiz-sample/quiz.toml: field")


def test_edited_quiz_is_read_again(quiz):
    assert load_quiz(quiz).question("pick-one").answer == "b"
    path = quiz.path / "quiz.toml"
    path.write_text(path.read_text("utf-8").replace('answer = "b"', 'answer = "a"'), "utf-8")
    # Some filesystems keep coarse timestamps: move the mtime on explicitly.
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert load_quiz(quiz).question("pick-one").answer == "a"
