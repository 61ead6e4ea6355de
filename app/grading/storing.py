"""Storing a finished result through a database outage: keep it, retry for a bounded time, then let the sweep decide."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import InterfaceError, OperationalError

from app.extensions import db

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)

# The database went away (or SQLite stayed locked): the same statement may succeed later.
UNREACHABLE = (OperationalError, InterfaceError)


def _rollback() -> None:
    try:
        db.session.rollback()
    except UNREACHABLE:
        pass  # the connection is gone with the server; the pool replaces it (pool_pre_ping)


def store_finished(app: Flask, submission_id: str, doc: dict[str, Any], *,
                   store: Callable[[dict[str, Any]], bool], fallback: dict[str, Any]) -> bool | None:
    """Store `doc` with `store`; True stored, False the job was taken over, None gave up.

    A grading costs seconds to minutes of a sandbox: while the database is unreachable the
    result is kept in this process and stored as soon as it answers (up to
    GRADING_STORE_RETRY_S). Past that the job keeps its stale heartbeat and the sweep puts it
    back in the queue. A result the database refuses for itself (too big, say) still ends the
    job, with `fallback` (an internal error the learner is told is not theirs).
    """
    deadline = time.monotonic() + float(app.config.get("GRADING_STORE_RETRY_S", 300))
    delay, tries = 0.5, 0
    while True:
        tries += 1
        try:
            if store(doc):
                if tries > 1:
                    log.warning("stored the result of submission %s after %d tries", submission_id, tries)
                return True
            log.warning("submission %s was taken over while grading; result dropped", submission_id)
            return False
        except UNREACHABLE:
            _rollback()
            if time.monotonic() + delay > deadline:
                log.error("gave up storing the result of submission %s after %d tries; "
                          "the sweep will grade it again", submission_id, tries)
                return None
            if tries == 1:
                log.warning("database unreachable: keeping the result of submission %s and retrying",
                            submission_id)
            time.sleep(delay)
            delay = min(delay * 2, 5.0)
        except Exception:
            log.exception("could not store the result of submission %s", submission_id)
            _rollback()
            return bool(store(fallback))
