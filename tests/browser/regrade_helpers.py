"""Regrades as their worker leaves them, for the browser tests: a report with rows, a learner's note."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.extensions import db
from app.models import Regrade, RegradeRun, Submission
from tests.browser.layout_helpers import CODE_EXERCISE, result_document

# The note the learner whose submission went from 60% to 100% reads, in each language.
NOTE = {"en": "after the exercise changed: was 60%, now 100%.", "ja": "に再採点しました：60% → 100%"}
# What the report of a run under way says: its progress, a job that kept the earlier result, one waiting.
UNDER_WAY = {"en": ("2 of 3 regraded", "not regraded: the earlier result stays", "waiting"),
             "ja": ("3 件中 2 件を再採点済み", "再採点できませんでした（以前の結果のまま）", "待機中")}


def finished_run(app: Any, changed: str, unchanged: str | None = None) -> None:
    """A run over the code exercise: `changed` went from failing at 60% to passing (its result is
    replaced, as the worker does), `unchanged` (if any) kept its failing verdict."""
    old = {**result_document("fail"), "score": 0.6}
    new = result_document("pass")
    now = datetime.now(UTC)
    with app.app_context():
        run = RegradeRun(exercise_id=CODE_EXERCISE, scope="latest", total=2 if unchanged else 1,
                         requested_by="teach@example.org", finished_at=now)
        db.session.add(run)
        db.session.flush()
        db.session.add(Regrade(run_id=run.id, submission_id=changed, exercise_id=CODE_EXERCISE, status="done",
                               old_result=old, new_result=new, old_score=0.6, new_score=1.0,
                               changed=["distances-shape"], finished_at=now, attempts=1))
        if unchanged:
            db.session.add(Regrade(run_id=run.id, submission_id=unchanged, exercise_id=CODE_EXERCISE,
                                   status="done", old_result=result_document("fail"),
                                   new_result=result_document("fail"), old_score=0.25, new_score=0.25,
                                   changed=[], finished_at=now, attempts=1))
        db.session.get(Submission, changed).result = new
        db.session.commit()
        db.session.remove()


def run_under_way(app: Any, changed: str, kept: str, waiting: str) -> None:
    """A run with jobs left (`active` set, nothing finishes it here): `changed` regraded 60% -> 100%,
    `kept` not regraded (a grader error: its earlier result stays), `waiting` still queued."""
    old = {**result_document("fail"), "score": 0.6}
    now = datetime.now(UTC)
    with app.app_context():
        run = RegradeRun(exercise_id=CODE_EXERCISE, scope="latest", total=3, requested_by="teach@example.org",
                         active=CODE_EXERCISE)
        db.session.add(run)
        db.session.flush()
        db.session.add_all([
            Regrade(run_id=run.id, submission_id=changed, exercise_id=CODE_EXERCISE, status="done",
                    old_result=old, new_result=result_document("pass"), old_score=0.6, new_score=1.0,
                    changed=["distances-shape"], finished_at=now, attempts=1),
            Regrade(run_id=run.id, submission_id=kept, exercise_id=CODE_EXERCISE, status="done",
                    old_result=result_document("fail"), new_result=None, old_score=0.25, new_score=None,
                    changed=[], finished_at=now, attempts=1, note="not regraded: internal error (sandbox)"),
            Regrade(run_id=run.id, submission_id=waiting, exercise_id=CODE_EXERCISE, status="queued"),
        ])
        db.session.get(Submission, changed).result = result_document("pass")
        db.session.commit()
        db.session.remove()
