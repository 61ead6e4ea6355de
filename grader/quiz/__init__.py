"""Quizzes: the schema of quiz.toml, answer checking, and grading into a results document."""

from grader.quiz.answers import QuizAnswerError
from grader.quiz.engine import (
    QUIZ_FILE,
    grade_quiz,
    key_answers,
    load_quiz,
    public_questions,
    shuffled_questions,
    validate_quiz,
    wrong_tries,
)

__all__ = ["QUIZ_FILE", "QuizAnswerError", "grade_quiz", "key_answers", "load_quiz", "public_questions",
           "shuffled_questions", "validate_quiz", "wrong_tries"]
