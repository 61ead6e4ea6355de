"""Tests of app.quizzes: quiz pages and the quiz API."""
