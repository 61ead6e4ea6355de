"""CSV export of every account's progress, one row per account and exercise."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from datetime import datetime

from app.instructor.learners import LearnerRow
from app.progress.status import ExerciseProgress
from grader.api import Exercise

HEADER = ["email", "role", "exercise", "kind", "lesson", "state", "attempts", "best_score",
          "attempts_to_pass", "first_pass_at", "last_at"]


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    # A cell starting like a formula runs as one in a spreadsheet: make it plain text.
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _iso(moment: object) -> str:
    # With its zone (app.models.UTCDateTime): a naive time is read as local by a spreadsheet (issue 34).
    return moment.isoformat() if isinstance(moment, datetime) else ""


def progress_csv(rows: Iterable[LearnerRow], exercises: Iterable[Exercise]) -> Iterator[str]:
    """The CSV a chunk per account (after the header), so a response can stream it."""
    ordered = sorted(exercises, key=lambda e: (e.config.lesson, e.config.order, e.id))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(HEADER)
    yield _taken(out)
    for row in rows:
        for exercise in ordered:
            item = row.progress.get(exercise.id) or ExerciseProgress(exercise.id)
            best = f"{item.best_score:.3f}" if item.best_score is not None else ""
            writer.writerow([_cell(v) for v in (
                row.user.email, row.user.role, exercise.id, exercise.config.kind,
                exercise.config.lesson, item.state, item.attempts, best,
                item.attempts_to_pass, _iso(item.first_pass_at), _iso(item.last_at))])
        yield _taken(out)


def _taken(out: io.StringIO) -> str:
    """What was written to `out` so far, and `out` emptied."""
    chunk = out.getvalue()
    out.seek(0)
    out.truncate()
    return chunk
