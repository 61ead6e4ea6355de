"""A learner's submissions of one exercise, newest first, a page of PAGE_SIZE at a time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.sql.elements import ColumnElement

from app.extensions import db
from app.models import Submission
from app.stored_json import number_at, text_at

# One page lists this many submissions without their code (each is fetched on demand), so a
# page costs the same whether the learner stored 11 submissions or the quota's worth.
PAGE_SIZE = 10
# The JSON history sends summaries only (a few fields each): a larger page costs little.
API_PAGE_SIZE = 50


@dataclass(frozen=True)
class Listed:
    """A submission as a list shows it: no code, and of its results document only the verdict
    and the score (read by JSON path in the database, so a list costs the same however large
    the documents are). Templates read it like a Submission."""

    id: str
    exercise_id: str
    created_at: datetime
    status: str
    result: dict[str, Any] | None


_LISTED = (Submission.id, Submission.exercise_id, Submission.created_at, Submission.status,
           text_at(Submission.result, "status"), number_at(Submission.result, "score"))


def _listed(row: Any) -> Listed:
    # A done row whose document the database cannot read (app.stored_json) lists without a score.
    result = {"status": row[4], "score": row[5]} if row[3] == "done" else None
    return Listed(row[0], row[1], row[2], row[3], result)


@dataclass(frozen=True)
class Page:
    """Submissions newest first; `newer`/`older` name the cursors of the neighbouring pages."""

    submissions: list[Listed]
    newer: str | None  # ?after=<id>: the page of submissions newer than this one's first
    older: str | None  # ?before=<id>: the page of submissions older than this one's last


def _mine(learner: str, exercise_id: str) -> ColumnElement[bool]:
    return and_(Submission.learner == learner, Submission.exercise_id == exercise_id)


def _before(sub: Submission | Listed) -> ColumnElement[bool]:
    # (created_at, id) < (sub's): spelled out, since row-value comparison is not portable.
    return or_(Submission.created_at < sub.created_at,
               and_(Submission.created_at == sub.created_at, Submission.id < sub.id))


def _after(sub: Submission | Listed) -> ColumnElement[bool]:
    return or_(Submission.created_at > sub.created_at,
               and_(Submission.created_at == sub.created_at, Submission.id > sub.id))


def own(learner: str | None, exercise_id: str, submission_id: str | None) -> Submission | None:
    """The learner's submission of this exercise with this id, or None (any other id)."""
    if not learner or not submission_id or len(submission_id) > 36:
        return None
    return db.session.scalar(select(Submission).where(
        _mine(learner, exercise_id), Submission.id == submission_id))


def _anchor(learner: str, exercise_id: str, submission_id: str | None) -> Listed | None:
    if not submission_id or len(submission_id) > 36:
        return None
    row = db.session.execute(select(*_LISTED).where(
        _mine(learner, exercise_id), Submission.id == submission_id)).first()
    return _listed(row) if row else None


def page(learner: str | None, exercise_id: str, *, before: str | None = None,
         after: str | None = None, size: int = PAGE_SIZE) -> Page:
    """One page of the learner's submissions, newest first, code not loaded.

    Keyset paging on (created_at, id): each page reads at most size + 1 rows through the
    (learner, exercise_id, created_at) index, however many the learner stored. A cursor that
    is not one of the learner's own submissions gives the first page.
    """
    if not learner:
        return Page([], None, None)
    query = select(*_LISTED).where(_mine(learner, exercise_id))
    newest_first = (Submission.created_at.desc(), Submission.id.desc())
    anchor = _anchor(learner, exercise_id, after) or _anchor(learner, exercise_id, before)
    if anchor is not None and anchor.id == after:
        rows = [_listed(row) for row in db.session.execute(
            query.where(_after(anchor)).order_by(Submission.created_at, Submission.id).limit(size + 1))]
        more_newer = len(rows) > size
        rows = list(reversed(rows[:size]))
        if not rows:  # nothing newer than the cursor: show the first page instead
            return page(learner, exercise_id, size=size)
        return Page(rows, rows[0].id if more_newer else None, rows[-1].id)
    if anchor is not None:
        query = query.where(_before(anchor))
    rows = [_listed(row) for row in db.session.execute(query.order_by(*newest_first).limit(size + 1))]
    more_older = len(rows) > size
    rows = rows[:size]
    newer = rows[0].id if anchor is not None and rows else None
    return Page(rows, newer, rows[-1].id if more_older else None)


def latest(learner: str | None, exercise_id: str) -> Submission | None:
    """The learner's newest submission of this exercise."""
    found = page(learner, exercise_id, size=1).submissions
    return db.session.get(Submission, found[0].id) if found else None


def previous_of(submission: Submission) -> Submission | None:
    """The same learner's submission of the same exercise just before this one (one row read)."""
    if submission.learner is None:
        return None
    return db.session.scalar(
        select(Submission).where(_mine(submission.learner, submission.exercise_id),
                                 _before(submission))
        .order_by(Submission.created_at.desc(), Submission.id.desc()).limit(1))


def summary(submission: Submission | Listed) -> dict[str, object]:
    """What the history lists for a submission (the API and the page use the same fields)."""
    result = submission.result if submission.status == "done" else None
    return {
        "id": submission.id,
        "exercise": submission.exercise_id,
        "created_at": submission.created_at.isoformat(),
        "status": submission.status,
        "verdict": result.get("status") if result else None,
        "score": result.get("score") if result else None,
    }
