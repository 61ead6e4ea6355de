"""Tests of grader.quiz: quiz schema, answers and grading."""
