"""Anonymous work expires (drafts, quiz attempts, submissions, Runs, hint reveals): on writes and by a CLI command."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from functools import wraps
from typing import Any

import click
from flask import Flask, current_app
from sqlalchemy import delete

from app.extensions import db
from app.models import Draft, HintReveal, QuizAttempt, Run, Submission, utcnow

# A write runs the cleanup at most this often per process: one indexed delete per table.
INTERVAL_S = 600.0
_last_run = {"at": float("-inf")}
_lock = threading.Lock()


def _anonymous(column: Any) -> Any:
    # Account keys are "u" + 32 hex digits (app.accounts.models.new_learner_key), anonymous
    # session keys 32 hex digits: no anonymous key starts with "u".
    return ~column.like("u%")


def expire(now: Any = None) -> tuple[int, int]:
    """Delete anonymous drafts not saved, and anonymous attempts not made, within the
    retention (ANONYMOUS_RETENTION_HOURS); returns how many of each went."""
    cutoff = (now or utcnow()) - timedelta(hours=current_app.config["ANONYMOUS_RETENTION_HOURS"])
    drafts = db.session.execute(delete(Draft).where(
        _anonymous(Draft.learner), Draft.updated_at < cutoff)).rowcount
    attempts = db.session.execute(delete(QuizAttempt).where(
        _anonymous(QuizAttempt.learner), QuizAttempt.created < cutoff)).rowcount
    # Submissions and Runs that ended: one queued or running is the queue's until it ends.
    for model in (Submission, Run):
        db.session.execute(delete(model).where(
            _anonymous(model.learner), model.status == "done", model.created_at < cutoff))
    # An anonymous session's hint reveals go with its other work (the instructor counts shrink).
    db.session.execute(delete(HintReveal).where(_anonymous(HintReveal.learner), HintReveal.created_at < cutoff))
    db.session.commit()
    return int(drafts or 0), int(attempts or 0)


def maybe_expire() -> None:
    """expire() when the last run in this process is INTERVAL_S ago or more."""
    with _lock:
        if time.monotonic() - _last_run["at"] < INTERVAL_S:
            return
        _last_run["at"] = time.monotonic()
    expire()


def init_app(app: Flask) -> None:
    """Run the cleanup before the views that store anonymous work; add `flask expire-anonymous`."""
    for endpoint in ("progress.put_draft", "quizzes.api_answers", "quizzes.answer", "api.submit", "api.run",
                     "progress.reveal_hint"):
        view = app.view_functions[endpoint]

        def cleaned(*args: Any, _view: Any = view, **kwargs: Any) -> Any:
            maybe_expire()
            return _view(*args, **kwargs)

        app.view_functions[endpoint] = wraps(view)(cleaned)

    @app.cli.command("expire-anonymous")
    def expire_anonymous() -> None:
        """Delete expired work of anonymous sessions (for cron)."""
        drafts, attempts = expire()
        click.echo(f"deleted {drafts} anonymous drafts and {attempts} anonymous quiz attempts")
