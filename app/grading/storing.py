"""Storing a finished job's result through a database outage: keep it, retry a bounded time, then the sweep decides."""

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


def store_finished(app: Flask, job: str, doc: dict[str, Any], *,
                   store: Callable[[dict[str, Any]], bool], fallback: dict[str, Any]) -> bool | None:
    """Store `doc` with `store`; True stored, False the job was taken over, None gave up. `job` names it in the log.

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
                    log.warning("stored the result of %s after %d tries", job, tries)
                return True
            log.warning("%s was stopped or taken over while it ran; its result is dropped", job)
            return False
        except UNREACHABLE:
            _rollback()
            if time.monotonic() + delay > deadline:
                log.error("gave up storing the result of %s after %d tries; "
                      "the sweep will take it over", job, tries)
                return None
            if tries == 1:
                log.warning("database unreachable: keeping the result of %s and retrying", job)
            time.sleep(delay)
            delay = min(delay * 2, 5.0)
        except Exception:
            log.exception("could not store the result of %s", job)
            _rollback()
            return bool(store(fallback))
