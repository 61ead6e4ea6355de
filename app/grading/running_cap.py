"""The cap on gradings one fairness key may have running at once: its size and the claim's guard.

A key is an account, or all anonymous sessions of one address (app.grading.fairness). Below
the number of grading threads, the cap means a flood of endless submissions from one key
never holds every thread: another learner's job always finds one (docs/scaling.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from sqlalchemy import and_, func, or_, select, text
from sqlalchemy.orm import aliased

from app.extensions import db
from app.grading.fairness import fairness_key
from app.models import Submission


def running_cap(config: Mapping[str, Any]) -> int:
    """GRADING_MAX_RUNNING_PER_KEY, or when 0 one less than the grading threads (at least 1)."""
    setting = int(config.get("GRADING_MAX_RUNNING_PER_KEY") or 0)
    if setting > 0:
        return setting
    return max(1, int(config.get("GRADER_WORKERS") or 1) - 1)


def under_cap(cap: int) -> Any:
    """A WHERE condition for an UPDATE of submissions: the row's key has fewer than `cap` running.

    Part of the claim's one statement, so the count and the claim are one step on SQLite (a
    writer holds the database); PostgreSQL also needs lock_key() first.
    """
    other = aliased(Submission)
    same_key = or_(
        and_(Submission.anon_address.isnot(None), other.anon_address == Submission.anon_address),
        and_(Submission.anon_address.is_(None), other.anon_address.is_(None),
             other.learner == Submission.learner),
    )
    running = (select(func.count()).select_from(other)
               .where(other.status == "running", same_key).correlate(Submission).scalar_subquery())
    return running < cap


def lock_key(submission_id: str) -> None:
    """PostgreSQL: hold the job's key until commit, so two claims of one key are counted in turn.

    Under READ COMMITTED two workers claiming two jobs of one key at the same moment would
    both count the other's claim as not yet there; a transaction-scoped advisory lock on the
    key makes the second wait for the first's commit and then see it. SQLite needs none.
    """
    if db.session.get_bind().dialect.name != "postgresql":
        return
    row = db.session.execute(select(Submission.learner, Submission.anon_address)
                             .where(Submission.id == submission_id)).first()
    if row is None:
        return
    digest = hashlib.sha256(fairness_key(row.learner, row.anon_address).encode("utf-8")).digest()
    db.session.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                       {"key": int.from_bytes(digest[:8], "big", signed=True)})
