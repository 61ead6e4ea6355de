"""Grades stored submissions (claim the fairest queued job, grade, store); runs the background lane's jobs."""

from __future__ import annotations

import inspect as pyinspect
import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import current_app
from flask_babel import force_locale, gettext
from sqlalchemy import select, update

from app.extensions import db
from app.grading import checks, jobs, regrade
from app.grading.fairness import claim_fairest, claimable, fair_ids
from app.grading.handle import get_queue
from app.grading.kinds import SUBMISSIONS
from app.grading.lost import reclaim_stale  # noqa: F401 -- callers and tests import it from here
from app.grading.routing import queue_kind
from app.grading.running_cap import lock_key, running_cap, under_cap
from app.grading.storing import store_finished
from app.models import Submission
from grader.api import error_result, internal_error

if TYPE_CHECKING:
    from flask import Flask

    from grader.api import Exercise

log = logging.getLogger(__name__)

GradeFunction = Callable[..., dict[str, Any]]
# The background lane's work, in priority order: (claim and run the next job of a grading
# queue, how many a free background worker could claim now). Folder checks first (a broken
# folder is hidden from learners sooner), then regrades. Only background workers take these
# (background_next): a learner's grading thread never holds a check (docs/scaling.md).


def _regrade_next(app: Flask, kind: str | None, token: str | None) -> str | None:
    """The next regrade, graded through the learners' own path (_run_grader, looked up when called)."""
    return regrade.regrade_next(app, kind, token, _run_grader)


BACKGROUND: tuple[tuple[Callable[[Flask, str | None, str | None], str | None],
                        Callable[[Flask, str | None], int]], ...] = ((checks.check_next, checks.claimable),
                                                                     (_regrade_next, regrade.claimable))

# Shown to the learner when grading failed on the platform's side (never their fault).


def _grade_function(app: Flask) -> GradeFunction:
    injected = app.config.get("GRADE_FUNCTION")
    if injected is not None:
        return injected  # type: ignore[no-any-return]
    from grader.api import grade_code  # imported late: the grader loads torch on demand

    return grade_code


def _claim(submission_id: str, token: str | None = None) -> str | None:
    """Claim the job (app.grading.jobs.claim) if its key is under its running cap; the claim's token or None.

    Only the holder of the token may store the result. Celery workers pass their message's
    task id, so the worker that sees the process die can give the job back. A job whose key
    already has GRADING_MAX_RUNNING_PER_KEY gradings running is not claimed
    (app.grading.running_cap): None, as when another worker won it.
    """
    delivery, token = token is not None, token or str(uuid.uuid4())
    lock_key(submission_id)
    claimed = jobs.claim(SUBMISSIONS, submission_id, token, under_cap(running_cap(current_app.config)),
                         delivery=delivery)
    return token if claimed else None


def _internal(exercise_id: str, lang: str, where: str) -> dict[str, Any]:
    """A platform fault's results document: the grader's own words (grader.messages), with where it
    happened in the submission's language."""
    with force_locale(lang):  # in the worker's app context: no request tells Babel the language
        detail = (gettext("in the grading worker") if where == "worker"
                  else gettext("the result could not be stored"))
    return internal_error(exercise_id, lang, detail=detail)


def _gone(exercise_id: str, lang: str) -> dict[str, Any]:
    """The results document for a job whose exercise was withdrawn, in the submission's language."""
    with force_locale(lang):  # in the worker's app context: no request tells Babel the language
        text = gettext("This exercise is no longer available, so the submission could not be graded.")
    return error_result(exercise_id, "internal", text).to_dict()


def _phase_writer(submission_id: str, token: str) -> Callable[[str], None]:
    """Stores the grader's phase on the job (the status API shows it), from any thread.

    Through the engine, not the session: the grader may call it from a thread of its own, and
    the grading thread's session must not be committed midway.
    """
    engine = db.engine

    def write(phase: str) -> None:
        with engine.begin() as connection:
            connection.execute(update(Submission)
                               .where(Submission.id == submission_id, Submission.claimed_by == token,
                                      Submission.status == "running")
                               .values(phase=phase))

    return write


def _run_grader(app: Flask, exercise: Exercise | None, sub: Submission, token: str) -> dict[str, Any]:
    if exercise is None:
        return _gone(sub.exercise_id, sub.lang)
    try:
        grade = _grade_function(app)
        progress: dict[str, Any] = {}
        if "on_phase" in pyinspect.signature(grade).parameters:  # an injected grader may not report
            progress["on_phase"] = _phase_writer(sub.id, token)
        return grade(exercise, sub.code, lang=sub.lang, sandbox=app.config["GRADER_SANDBOX"], **progress)
    except Exception:  # the contract says grade_code never raises; if it does, it is ours
        log.exception("grader raised for submission %s", sub.id)
        # The grader's own words for its faults (grader.messages), as grade_code would have said.
        return _internal(sub.exercise_id, sub.lang, "worker")


def _store(submission_id: str, token: str, doc: dict[str, Any]) -> bool:
    """Write the result if this claim still holds the job (a reclaimed job's old worker may not)."""
    return jobs.store(SUBMISSIONS, submission_id, token, result=doc)


def _grade_claimed(app: Flask, submission_id: str, token: str) -> None:
    sub = db.session.get(Submission, submission_id)
    if sub is None:
        return
    catalog = app.extensions["exercise_catalog"]
    exercise_id, lang = sub.exercise_id, sub.lang
    # The heartbeat goes on while the result waits for the database, so a job whose result is
    # kept through an outage is not taken for a dead worker's the moment the database returns.
    with jobs.beating(app, SUBMISSIONS, submission_id, token):
        doc = _run_grader(app, catalog.get(exercise_id), sub, token)
        stored = store_finished(app, f"submission {submission_id}", doc,
                                store=lambda document: _store(submission_id, token, document),
                                fallback=_internal(exercise_id, lang, "store"))
    if stored and doc.get("error_kind") == "authoring":  # the folder's tests are broken: not for learners
        try:
            checks.record_authoring_error(app, exercise_id, doc)
        except Exception:  # the learner's result is stored; the flag is the validation page's to set again
            log.exception("could not mark exercise %s as broken", exercise_id)
            db.session.rollback()


def grade_submission(app: Flask, submission_id: str) -> None:
    """Grade one given submission in its own app context (worker threads have none)."""
    with app.app_context():
        token = _claim(submission_id)
        if token is not None:
            _grade_claimed(app, submission_id, token)


def _queued(app: Flask, kind: str | None) -> list[Any]:
    queued = db.session.execute(
        select(Submission.id, Submission.exercise_id, Submission.learner, Submission.anon_address,
               Submission.created_at)
        .where(Submission.status == "queued")
    ).all()
    if kind is not None:
        catalog = app.extensions["exercise_catalog"]
        queued = [row for row in queued if queue_kind(app, catalog.get(row.exercise_id)) == kind]
    if not queued:
        db.session.commit()
    return list(queued)


def fair_order(app: Flask, kind: str | None, *, claimable_only: bool = False) -> list[str]:
    """Queued submission ids, fairest first (app.grading.fairness): one turn per learner a round.

    All anonymous sessions of one address are one learner there, and a learner who was just
    served goes behind everyone already waiting, so a flood from fresh sessions delays another
    learner's next job by at most the one grading already running. `claimable_only` leaves out
    the jobs of keys at their running cap (what a worker may take now).
    """
    queued = _queued(app, kind)
    if not queued:
        return []
    return fair_ids(Submission, queued, running_cap(app.config) if claimable_only else 0)


def claimable_jobs(app: Flask, kind: str | None) -> int:
    """How many queued gradings of this queue (None: any) a free grading worker could claim now, the caps allowing."""
    return claimable(Submission, _queued(app, kind), running_cap(app.config))


def claimable_background(app: Flask, kind: str | None) -> int:
    """How many folder checks and regrades of this grading queue (None: any) a free background worker could claim."""
    return sum(count(app, kind) for _, count in BACKGROUND)


def _wake(app: Flask, kind: str | None, *, background: bool = False) -> None:
    """A job ended: its key (or its lane's slot) may run another one now, so make sure a token will look for it.

    A token that came while every waiting job's key was at its cap found nothing and was
    spent; without this, those jobs would wait for the next submission (or the Celery sweep)
    while a thread sits idle.
    """
    try:
        get_queue(app).wake(kind, background=background)
    except Exception:  # Redis away for a moment: the sweep publishes the missing tokens
        log.warning("could not wake a worker for the next job", exc_info=True)


def grade_next(app: Flask, kind: str | None = None, token: str | None = None) -> str | None:
    """Claim and grade the fairest queued learner's submission of this queue (None: any); returns its id.

    Every enqueued message is a token for one grading, not for one id: whichever job is
    fairest when a worker is free gets graded, and a duplicate token finds nothing to do.
    Folder checks and regrades are the background lane's (background_next), never taken here.
    """
    with app.app_context():
        # A claim that fails means another worker won that job (or its key reached its cap
        # meanwhile): the next one is tried.
        claimed = claim_fairest(lambda: fair_order(app, kind, claimable_only=True),
                                lambda job_id: _claim(job_id, token))
        if claimed is None:
            return None
        submission_id, claim = claimed
        try:
            _grade_claimed(app, submission_id, claim)
        finally:
            _wake(app, kind)
        return submission_id


def background_next(app: Flask, kind: str | None = None, token: str | None = None) -> str | None:
    """Claim and run the next background job of this grading queue (None: any): a check, else a regrade; its id."""
    with app.app_context():
        for take_next, _ in BACKGROUND:
            done = take_next(app, kind, token)
            if done is not None:
                _wake(app, kind, background=True)  # its slot is free again: the next one needs a token
                return done
        return None
