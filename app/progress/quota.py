"""A storage quota per learner (code of submissions and drafts, quiz attempts), refused with a sentence."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import Flask, current_app, render_template, request
from flask_babel import gettext as _
from sqlalchemy import func, select

from app.accounts.identity import learner_key
from app.bodies import BadBody, read_body, read_code
from app.errors import json_error
from app.extensions import db
from app.models import Draft, QuizAttempt, Submission

# What a row costs beside its code: a submission's results document and columns, a quiz
# attempt's answers and results document (normalised answers are a few bytes; the results
# document is bounded by grader.results.validate_document).
SUBMISSION_OVERHEAD = 2048
ATTEMPT_BYTES = 4096


def used_bytes(learner: str, *, except_draft: str | None = None) -> int:
    """What the learner stores now, in bytes as the quota counts them.

    Sums of the code_bytes kept with each row, read from covering indexes: the check costs
    a few thousand integers at the quota (about 7,800 submissions of the smallest size), never
    the up to 16 MB of code itself that summing length(code) read on every submission.
    """
    code, count = db.session.execute(
        select(func.coalesce(func.sum(Submission.code_bytes), 0), func.count())
        .where(Submission.learner == learner)).one()
    drafts = select(func.coalesce(func.sum(Draft.code_bytes), 0)).where(Draft.learner == learner)
    if except_draft is not None:  # a draft save replaces the stored draft of that exercise
        drafts = drafts.where(Draft.exercise_id != except_draft)
    attempts = db.session.scalar(select(func.count()).select_from(QuizAttempt)
                                 .where(QuizAttempt.learner == learner)) or 0
    return (int(code) + int(count) * SUBMISSION_OVERHEAD + int(db.session.scalar(drafts) or 0)
            + int(attempts) * ATTEMPT_BYTES)


def over_quota(adding: int, *, except_draft: str | None = None) -> bool:
    quota = current_app.config["LEARNER_STORAGE_QUOTA"]
    return used_bytes(learner_key(), except_draft=except_draft) + adding > quota


def message() -> str:
    megabytes = f'{current_app.config["LEARNER_STORAGE_QUOTA"] / 1e6:.3g}'
    return _("Your saved work has reached the storage limit of one learner (%(size)s MB), "
             "so this was not stored. Ask your instructor to make room.", size=megabytes)


def _code_size() -> int | None:
    """Bytes of the code in this JSON body, or None when the body is bad (the view says why)."""
    request.get_data(cache=True)  # read_body reads uncached: keep the body for the view
    try:
        return len(read_code(read_body()).encode("utf-8"))
    except BadBody:
        return None


def _has_draft(exercise_id: str) -> bool:
    return db.session.scalar(select(Draft.id).where(
        Draft.learner == learner_key(), Draft.exercise_id == exercise_id)) is not None


def _guard(app: Flask, endpoint: str, size: Callable[[], int | None], *, draft: bool = False,
           page: bool = False) -> None:
    view = app.view_functions[endpoint]

    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if draft and _has_draft(kwargs.get("exercise_id", "")):
            # Autosave replaces an existing draft every 1.5 s: summing the learner's storage
            # each time would cost more than the save. A replaced draft grows by at most one
            # code (64 KB) per exercise, so the quota holds within that; new drafts are checked.
            return view(*args, **kwargs)
        adding = size()
        if adding is not None and over_quota(adding, except_draft=kwargs.get("exercise_id") if draft else None):
            if page:
                return render_template("errors/page.html", status=403, message=message()), 403
            return json_error(403, "storage_quota", message())
        return view(*args, **kwargs)

    app.view_functions[endpoint] = guarded


def init_app(app: Flask) -> None:
    """Wrap the views that store work; call after ratelimits.init_app, so that a refusal by
    the quota runs first and uses up none of the learner's rate limits."""
    _guard(app, "api.submit", lambda: None if (n := _code_size()) is None else n + SUBMISSION_OVERHEAD)
    _guard(app, "progress.put_draft", _code_size, draft=True)
    _guard(app, "quizzes.api_answers", lambda: ATTEMPT_BYTES)
    _guard(app, "quizzes.answer", lambda: ATTEMPT_BYTES if request.method == "POST" else 0, page=True)
