"""Progress: the dashboard, submission history with diffs, and drafts saved on the server."""

from flask import Blueprint

bp = Blueprint("progress", __name__)

from app.progress import api, figures, panel, regraded, routes  # noqa: E402,F401  (registers the views on bp)
