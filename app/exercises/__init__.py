"""The exercise page: the prompt, the code editor and the feedback area."""

from flask import Blueprint

bp = Blueprint("exercises", __name__)

from app.exercises import routes  # noqa: E402,F401  (registers the views on bp)
