"""The caps on jobs running at once (gradings or Runs): per key, per person, and for anonymous work.

A key is an account, or all anonymous sessions of one address (app.grading.fairness). Three
rules, checked in the claim's one statement, each below the number of threads (`cap`):

1. a key has fewer than `cap` jobs running;
2. one person, one share: the anonymous work of an address shares the share of the accounts
   working from that address (`from_address`), and they go first: it starts only while no
   account from there has a job of this kind queued or running, or ended in the last
   GRACE_S seconds (app.grading.fairness.accounts_busy: the moment between one job's end
   and the next one's arrival). So an account plus cookie-less requests from its address
   hold no more threads than the account;
3. all anonymous work, from every address, holds fewer than `cap` threads: one thread is kept
   for learners with an account, whatever number of addresses sends endless jobs.

So a flood of endless jobs from one key, one person or any number of anonymous addresses
never holds every thread: another learner's job always finds one (docs/scaling.md).
Accounts are never held back by anonymous work at their address (a class behind one NAT
address with a hostile anonymous classmate keeps its threads; the classmate waits).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, func, or_, select, text
from sqlalchemy.orm import aliased

from app.extensions import db
from app.grading.fairness import accounts_busy, claimable, fairness_key
from app.grading.handle import get_queue
from app.grading.kinds import RUNS
from app.models import Run, Submission

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)
ANONYMOUS = "anonymous"  # the advisory-lock key of rule 3


def running_cap(config: Mapping[str, Any]) -> int:
    """GRADING_MAX_RUNNING_PER_KEY, or when 0 one less than the grading threads (at least 1)."""
    setting = int(config.get("GRADING_MAX_RUNNING_PER_KEY") or 0)
    if setting > 0:
        return setting
    return max(1, int(config.get("GRADER_WORKERS") or 1) - 1)


def run_cap(config: Mapping[str, Any]) -> int:
    """The same for Runs: RUN_MAX_RUNNING_PER_KEY, or when 0 one less than RUN_WORKERS (at least 1)."""
    setting = int(config.get("RUN_MAX_RUNNING_PER_KEY") or 0)
    if setting > 0:
        return setting
    return max(1, int(config.get("RUN_WORKERS") or 1) - 1)


def under_cap(cap: int, model: Any = Submission) -> Any:
    """A WHERE condition for an UPDATE of `model` rows: the three rules of this module hold.

    Part of the claim's one statement, so the counts and the claim are one step on SQLite (a
    writer holds the database); PostgreSQL also needs lock_key() first.
    """
    other = aliased(model)

    def running(*condition: Any) -> Any:
        return (select(func.count()).select_from(other)
                .where(other.status == "running", *condition).correlate(model).scalar_subquery())

    same_key = or_(
        and_(model.anon_address.isnot(None), other.anon_address == model.anon_address),
        and_(model.anon_address.is_(None), other.anon_address.is_(None), other.learner == model.learner),
    )
    anonymous = model.anon_address.isnot(None)
    return and_(
        running(same_key) < cap,
        or_(~anonymous, ~accounts_busy(other, model.anon_address).correlate(model)),
        or_(~anonymous, running(other.anon_address.isnot(None)) < cap),
    )



def _lock_number(key: str) -> int:
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def lock_key(job_id: str, model: Any = Submission) -> None:
    """PostgreSQL: hold the job's key, address and (anonymous) share until commit.

    Under READ COMMITTED two workers claiming two jobs of one key at the same moment would
    both count the other's claim as not yet there; transaction-scoped advisory locks on what
    the rules count make the second wait for the first's commit and then see it. Taken in one
    order (sorted), so two claims never wait for each other. SQLite needs none.
    """
    if db.session.get_bind().dialect.name != "postgresql":
        return
    row = db.session.execute(select(model.learner, model.anon_address, model.from_address)
                             .where(model.id == job_id)).first()
    if row is None:
        return
    keys = {model.__tablename__ + fairness_key(row.learner, row.anon_address)}
    if row.from_address:
        keys.add(f"{model.__tablename__}address:{row.from_address}")
    if row.anon_address:
        keys.add(model.__tablename__ + ANONYMOUS)
    for number in sorted(_lock_number(key) for key in keys):
        db.session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": number})


def wake_runs(app: Flask) -> None:
    """A Run ended: if a queued Run may run now, make sure a token will look for it.

    A token that came while that Run was held back by a cap found nothing and was spent;
    without this it would wait for the next Run pressed anywhere (or the Celery sweep).
    """
    try:
        with app.app_context():
            queued = db.session.execute(select(Run.id, Run.learner, Run.anon_address, Run.created_at)
                                        .where(Run.status == "queued")).all()
            if not queued or claimable(Run, queued, run_cap(app.config)) == 0:
                db.session.commit()
                return
            get_queue(app).enqueue(RUNS.name, queued[0].id)
    except Exception:  # the database or Redis away for a moment: the sweep publishes missing tokens
        log.warning("could not wake a Run worker", exc_info=True)
