"""Jobs whose grading was lost (a killed pool process, a silent host): back to the queue, or ended after N tries."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, update

from app.extensions import db
from app.grading.clock import db_now
from app.models import Submission
from grader.api import error_result

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)

# Shown when a job's grading was lost GRADING_MAX_ATTEMPTS times: almost always the code itself
# (memory, a crash in a native library) takes the grading process down with it.
STOPPED_MESSAGES = {
    "en": "Your code stopped the grader {count} times, so it was not graded. It may use too much "
          "memory or crash Python itself (for example through a native library). "
          "Change it, then submit again.",
    "ja": "あなたのコードが採点プログラムを {count} 回停止させたため、採点できませんでした。"
          "メモリを使いすぎているか、(ネイティブライブラリなどを通じて) Python 自体を"
          "異常終了させている可能性があります。コードを直してから、もう一度提出してください。",
}


def stopped_result(exercise_id: str, lang: str, count: int) -> dict[str, Any]:
    text = STOPPED_MESSAGES.get(lang, STOPPED_MESSAGES["en"]).format(count=count)
    return error_result(exercise_id, "runtime", text).to_dict()


def _give_back(app: Flask, condition: Any) -> list[str]:
    """Running jobs matching `condition`: queued again, or done with a message after N attempts."""
    limit = int(app.config.get("GRADING_MAX_ATTEMPTS", 3))
    rows = db.session.execute(
        select(Submission.id, Submission.exercise_id, Submission.lang, Submission.attempts,
               Submission.claimed_by)
        .where(Submission.status == "running", condition)
    ).all()
    returned = []
    for row in rows:
        # Only while the same claim still holds it: a result stored meanwhile wins.
        still = update(Submission).where(Submission.id == row.id, Submission.status == "running",
                                         Submission.claimed_by == row.claimed_by)
        if row.attempts >= limit:
            db.session.execute(still.values(
                status="done", finished_at=db_now(),
                result=stopped_result(row.exercise_id, row.lang, row.attempts)))
            log.warning("submission %s lost its grading %d times: ended", row.id, row.attempts)
        else:
            # claimed_by stays: it marks the dead claim's token as spent for the sweep's count,
            # and a result stored under it is refused (only a running job takes a result).
            db.session.execute(still.values(status="queued"))
            returned.append(row.id)
    db.session.commit()
    return returned


def release(app: Flask, token: str) -> list[str]:
    """The process that claimed with `token` died (Celery's WorkerLostError): give its job back now."""
    with app.app_context():
        returned = _give_back(app, Submission.claimed_by == token)
    if returned:
        log.warning("grading process died; submission(s) back in the queue: %s", returned)
    return returned


def reclaim_stale(app: Flask) -> list[str]:
    """Running jobs whose heartbeat stopped (their host died), by the database's clock."""
    stale_after = float(app.config.get("GRADING_STALE_AFTER_S", 60))
    with app.app_context():
        returned = _give_back(app, Submission.heartbeat_at < db_now(stale_after))
    if returned:
        log.warning("reclaimed %d job(s) whose worker stopped: %s", len(returned), returned)
    return returned
