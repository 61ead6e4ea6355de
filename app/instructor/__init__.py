"""Instructor pages and API: exercise statistics, learners' progress, CSV export, validation."""

from flask import Blueprint, abort

from app.accounts.identity import is_instructor

bp = Blueprint("instructor", __name__)


@bp.before_request
def _instructors_only() -> None:
    # One gate for every view of the blueprint, pages and API alike: none can be forgotten.
    if not is_instructor():
        abort(403)


from app.instructor import api, regrade_routes, routes  # noqa: E402,F401  (registers the views on bp)
