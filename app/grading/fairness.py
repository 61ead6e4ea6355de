"""The fair order of queued jobs (gradings or Runs): one turn per learner per round, cookies or not.

Who counts as one learner (the "fairness key"): an account's (or a session's) learner key for
logged-in learners; for anonymous jobs the keyed hash of the client address
(app.grading.admission.address_key), so any number of cookie-less sessions from one address
are ONE learner here. Rank of a queued job, smallest first:

1. how many jobs of its key are running now;
2. its key's turn time: when the key began waiting for its next turn, that is the later of its
   oldest queued job's creation and its last job's finish (a key never served: the creation);
3. inside one address, the same two between its sessions (a session's own learner key);
4. the job's own creation time (a key's jobs in the order they came).

Why this gives the bound in docs/scaling.md: an honest learner H sends one job j at time t and
waits for its result, against a flood F from one address (any number of sessions). H's turn
time is t (its previous job finished before t). A worker picks only when it is free: either
it was idle when j came (j starts at once), or it just finished a job that was running at t,
which was F's (H has no other job), so F's turn time is that finish, later than t; with several
workers, a free one sees F's other jobs running and H's none. Either way j goes next: H waits
for at most the grading that was running when j arrived, plus j.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import func, or_, select

from app.extensions import db
from app.grading.clock import db_now

T = TypeVar("T")
GRACE_S = 10.0  # an account's job that ended this recently still holds its address (accounts_busy)


def fairness_key(learner: str | None, anon_address: str | None) -> str:
    """All anonymous sessions of one address share a key; an account or session has its own."""
    if anon_address:
        return "address:" + anon_address
    return "learner:" + (learner or "")


def accounts_busy(model: Any, address: Any) -> Any:
    """EXISTS: an account working from `address` has a job of `model`'s kind queued or running,
    or one that ended in the last GRACE_S seconds (app.grading.running_cap, rule 2)."""
    return (select(model.id).where(
        model.from_address == address, model.anon_address.is_(None),
        or_(model.status.in_(("held", "queued", "running")), model.finished_at > db_now(GRACE_S)))
        .exists())


def _stamp(moment: datetime | None) -> float:
    return moment.timestamp() if moment is not None else 0.0


@dataclass
class _Stats:
    """What the fair order and the caps read about the keys of the queued rows."""

    finished: dict[str, float] = field(default_factory=dict)  # key -> its last job's finish
    running: dict[str, int] = field(default_factory=dict)  # key -> its jobs running now
    # addresses whose accounts have work pending or just ended: their anonymous work waits
    busy_addresses: set[str] = field(default_factory=set)
    anonymous: int = 0  # anonymous jobs running, from every address

    def running_of(self, row: Any) -> int:
        return self.running.get(fairness_key(row.learner, row.anon_address), 0)

    def may_run(self, row: Any, cap: int) -> bool:
        """The caps of app.grading.running_cap, as read now: could a claim take this row?"""
        if not row.anon_address:
            return self.running_of(row) < cap
        return (self.running_of(row) < cap and row.anon_address not in self.busy_addresses
                and self.anonymous < cap)


def _key_stats(model: Any, queued: Sequence[Any]) -> _Stats:
    """Last finish time and running counts of the keys of `queued` (grouped queries, one per kind)."""
    learners = sorted({row.learner for row in queued if row.learner})
    addresses = sorted({row.anon_address for row in queued if row.anon_address})
    stats = _Stats()
    for kind, column, values in (("learner", model.learner, learners),
                                 ("address", model.anon_address, addresses)):
        if not values:
            continue
        for value, last in db.session.execute(
            select(column, func.max(model.finished_at))
            .where(column.in_(values), model.finished_at.isnot(None)).group_by(column)
        ).all():
            stats.finished[f"{kind}:{value}"] = _stamp(last)
        for value, count in db.session.execute(
            select(column, func.count())
            .where(column.in_(values), model.status == "running").group_by(column)
        ).all():
            stats.running[f"{kind}:{value}"] = int(count)
    if addresses:
        stats.busy_addresses = {address for address in addresses
                                if db.session.scalar(select(accounts_busy(model, address)))}
        stats.anonymous = int(db.session.scalar(
            select(func.count()).select_from(model)
            .where(model.anon_address.isnot(None), model.status == "running")) or 0)
    db.session.commit()
    return stats


def claimable(model: Any, queued: Sequence[Any], cap: int) -> int:
    """How many of the `queued` rows could be claimed now: per key, its queued jobs up to its free slots."""
    if not queued:
        return 0
    stats = _key_stats(model, queued)
    waiting: dict[str, list[Any]] = {}
    for row in queued:
        waiting.setdefault(fairness_key(row.learner, row.anon_address), []).append(row)
    return sum(min(len(rows), max(0, cap - stats.running_of(rows[0])))
               for rows in waiting.values() if stats.may_run(rows[0], cap))


def fair_ids(model: Any, queued: Sequence[Any], cap: int = 0) -> list[str]:
    """The ids of `queued` rows (id, learner, anon_address, created_at) in the fair order.

    With a `cap`, jobs that no claim could take now (app.grading.running_cap: their key at the
    cap, their address's accounts busy, all anonymous work at the cap) are left out. Reads the running counts
    and last finish times of the keys involved, then ends the read transaction: SQLite cannot
    turn it into a claim's write.
    """
    stats = _key_stats(model, queued)
    if cap > 0:
        queued = [row for row in queued if stats.may_run(row, cap)]
        if not queued:
            return []

    oldest: dict[str, float] = {}
    for row in queued:
        created = _stamp(row.created_at)
        for key in {fairness_key(row.learner, row.anon_address), fairness_key(row.learner, None)}:
            oldest[key] = min(oldest.get(key, created), created)

    def place(key: str, running: int) -> tuple[int, float]:
        # Coming back after a pause does not count the pause as waiting: the later of the two.
        return running, max(stats.finished.get(key, 0.0), oldest[key])

    def rank(row: Any) -> tuple[int, float, int, float, float]:
        # First between keys (an address's anonymous sessions are one: across addresses as
        # across keys); then, inside one address, the same rule between its sessions, so an
        # anonymous learner's backlog does not hold up a classmate behind the same address
        # more than one job.
        session = fairness_key(row.learner, None)
        return (*place(fairness_key(row.learner, row.anon_address), stats.running_of(row)),
                *place(session, stats.running.get(session, 0)), _stamp(row.created_at))

    return [row.id for row in sorted(queued, key=rank)]


def claim_fairest(order: Callable[[], list[str]], claim: Callable[[str], T | None],
                  rounds: int = 5) -> tuple[str, T] | None:
    """The fairest job this worker could claim, and its claim; None when none is left.

    The order is a snapshot: on a busy host another worker may take every job in it while a
    newer job waits, so the order is read again then (a token must never be spent on nothing
    while a job waits: in-process, nothing else would run it).
    """
    for _ in range(rounds):
        ids = order()[:20]
        if not ids:
            return None
        for job_id in ids:
            got = claim(job_id)
            if got is not None:
                return job_id, got
    return None
