"""Grades one stored submission: claim it, call the grader, store the results document."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import inspect, select, update

from app.extensions import db
from app.models import Submission, utcnow
from grader.results import error_result

if TYPE_CHECKING:
    from flask import Flask

    from grader.loader import Exercise

log = logging.getLogger(__name__)

GradeFunction = Callable[..., dict[str, Any]]

# Shown to the learner when grading failed on the platform's side (never their fault).
INTERNAL_MESSAGES = {
    "en": "The grader failed on our side, so this attempt does not count. Please submit again.",
    "ja": "採点側で問題が起きたため、今回の提出は数えません。もう一度提出してください。",
}
GONE_MESSAGES = {
    "en": "This exercise is no longer available, so the submission could not be graded.",
    "ja": "この演習は公開を終了したため、提出を採点できませんでした。",
}


def _grade_function(app: Flask) -> GradeFunction:
    injected = app.config.get("GRADE_FUNCTION")
    if injected is not None:
        return injected  # type: ignore[no-any-return]
    from grader.api import grade_code  # imported late: the grader loads torch on demand

    return grade_code


def _claim(submission_id: str) -> bool:
    """Move queued -> running in one statement, so two workers never grade the same job."""
    claimed = db.session.execute(
        update(Submission)
        .where(Submission.id == submission_id, Submission.status == "queued")
        .values(status="running", started_at=utcnow())
    )
    db.session.commit()
    return claimed.rowcount == 1  # type: ignore[attr-defined]


def _internal(exercise_id: str, messages: dict[str, str], lang: str) -> dict[str, Any]:
    text = messages.get(lang, messages["en"])
    return error_result(exercise_id, "internal", text).to_dict()


def _run_grader(app: Flask, exercise: Exercise | None, sub: Submission) -> dict[str, Any]:
    if exercise is None:
        return _internal(sub.exercise_id, GONE_MESSAGES, sub.lang)
    try:
        grade = _grade_function(app)
        return grade(exercise, sub.code, lang=sub.lang, sandbox=app.config["GRADER_SANDBOX"])
    except Exception:  # the contract says grade_code never raises; if it does, it is ours
        log.exception("grader raised for submission %s", sub.id)
        return _internal(sub.exercise_id, INTERNAL_MESSAGES, sub.lang)


def _store(submission_id: str, doc: dict[str, Any]) -> None:
    sub = db.session.get(Submission, submission_id)
    if sub is None:
        return
    sub.result, sub.status, sub.finished_at = doc, "done", utcnow()
    db.session.commit()


def grade_submission(app: Flask, submission_id: str) -> None:
    """Run one grading job in its own app context (worker threads have none)."""
    from app.content.exercises import ExerciseCatalog

    with app.app_context():
        if not _claim(submission_id):
            return  # already taken by another worker, or finished
        sub = db.session.get(Submission, submission_id)
        if sub is None:
            return
        catalog: ExerciseCatalog = app.extensions["exercise_catalog"]
        doc = _run_grader(app, catalog.get(sub.exercise_id), sub)
        try:
            _store(submission_id, doc)
        except Exception:
            # A result that cannot be stored (too big, database hiccup) must still end the job.
            log.exception("could not store the result of submission %s", submission_id)
            db.session.rollback()
            _store(submission_id, _internal(sub.exercise_id, INTERNAL_MESSAGES, sub.lang))


def recover_unfinished(app: Flask) -> list[str]:
    """Re-enqueue what a stopped server left queued or running; returns the ids."""
    from app.grading.queue import get_queue

    with app.app_context():
        if not inspect(db.engine).has_table(Submission.__tablename__):
            return []  # a fresh database before `flask db upgrade`
        # A job marked running when the server starts has no live worker any more.
        db.session.execute(
            update(Submission).where(Submission.status == "running").values(status="queued")
        )
        db.session.commit()
        ids = list(
            db.session.scalars(
                select(Submission.id)
                .where(Submission.status == "queued")
                .order_by(Submission.created_at)
            )
        )
    queue = get_queue(app)
    for submission_id in ids:
        queue.enqueue(submission_id)
    if ids:
        log.info("re-enqueued %d unfinished submission(s)", len(ids))
    return ids
