"""Progress aggregated in SQL: one row per (learner, exercise), never one per stored attempt.

Learners' and instructors' pages read these instead of every graded attempt: what a page
loads is bounded by learners x exercises (and pages of learners), whatever the history holds.
The rules are app.progress.records' and app.progress.status': an internal error does not count,
a submission waiting for its grader does (without a score), attempts_to_pass is the number of
the first passing attempt in time order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import and_, case, func, literal, or_, select, union_all

from app.extensions import db
from app.models import QuizAttempt, Submission
from app.progress.status import ExerciseProgress
from app.stored_json import number_at, text_at


def counted_attempts(learners: Iterable[str] | None = None) -> Any:
    """Every counted attempt as a subquery: learner, exercise_id, at, passed (0/1), score (or NULL)."""
    selects = []
    for model, at, done in ((Submission, Submission.created_at, Submission.status == "done"),
                            (QuizAttempt, QuizAttempt.created, literal(True))):
        # json_extract / ->>: the document stays put; NULL where it is not valid JSON (app.stored_json)
        status = text_at(model.result, "status")
        kind = text_at(model.result, "error_kind")
        graded = and_(done, status.is_not(None))
        query = select(
            model.learner.label("learner"), model.exercise_id.label("exercise_id"), at.label("at"),
            case((and_(graded, status == "pass"), 1), else_=0).label("passed"),
            case((graded, func.coalesce(number_at(model.result, "score"), 0.0)), else_=None).label("score"),
        ).where(model.learner.is_not(None),
                # Internal and authoring errors are the platform's or the author's fault, never the learner's.
                or_(~graded, kind.is_(None), kind.not_in(("internal", "authoring"))))
        if learners is not None:
            query = query.where(model.learner.in_(list(learners)))
        selects.append(query)
    return union_all(*selects).subquery()


def per_learner_exercise(learners: Iterable[str] | None = None) -> Any:
    """One row per (learner, exercise): attempts, best, last_at, first_pass_at, to_pass."""
    keys = None if learners is None else list(learners)
    every = counted_attempts(keys)
    per = (select(every.c.learner, every.c.exercise_id, func.count().label("attempts"),
                  func.max(every.c.score).label("best"), func.max(every.c.at).label("last_at"),
                  func.min(case((every.c.passed == 1, every.c.at), else_=None)).label("first_pass_at"))
           .group_by(every.c.learner, every.c.exercise_id).subquery())
    again = counted_attempts(keys)
    upto = (select(again.c.learner, again.c.exercise_id, func.count().label("to_pass"))
            .join(per, and_(per.c.learner == again.c.learner, per.c.exercise_id == again.c.exercise_id))
            .where(per.c.first_pass_at.is_not(None), again.c.at <= per.c.first_pass_at)
            .group_by(again.c.learner, again.c.exercise_id).subquery())
    return (select(per, upto.c.to_pass)
            .outerjoin(upto, and_(upto.c.learner == per.c.learner, upto.c.exercise_id == per.c.exercise_id))
            .subquery())


def progress_of(row: Any) -> ExerciseProgress:
    return ExerciseProgress(
        row.exercise_id, attempts=int(row.attempts), solved=row.first_pass_at is not None,
        best_score=None if row.best is None else float(row.best), first_pass_at=row.first_pass_at,
        attempts_to_pass=None if row.to_pass is None else int(row.to_pass), last_at=row.last_at)


def progress_table(learners: Iterable[str]) -> dict[str, dict[str, ExerciseProgress]]:
    """learner -> exercise id -> progress, for the given learners only."""
    keys = list(learners)
    table: dict[str, dict[str, ExerciseProgress]] = {key: {} for key in keys}
    if not keys:
        return table
    rows = per_learner_exercise(keys)
    for row in db.session.execute(select(rows)):
        table[row.learner][row.exercise_id] = progress_of(row)
    return table


def learner_progress(learner: str) -> dict[str, ExerciseProgress]:
    """One learner's progress per exercise, aggregated in SQL (one row per exercise)."""
    return progress_table([learner])[learner]
