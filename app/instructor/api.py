"""Instructor JSON API: the exercise statistics of the overview page."""

from __future__ import annotations

from flask import jsonify
from werkzeug.wrappers import Response

from app.content import exercise_catalog
from app.instructor import bp
from app.instructor.stats import exercise_stats


@bp.get("/api/instructor/stats")
def stats() -> Response:
    ids = sorted(exercise_catalog().exercises().exercises)
    table = exercise_stats(ids)
    response = jsonify({"exercises": [table[ex_id].to_api() for ex_id in ids]})
    response.headers["Cache-Control"] = "no-store"
    return response
