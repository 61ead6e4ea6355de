"""Quizzes: a page per quiz (questions, answers graded on the server) and its JSON API."""

from flask import Blueprint

bp = Blueprint("quizzes", __name__)

from app.quizzes import api, routes  # noqa: E402,F401  (registers the views on bp)
