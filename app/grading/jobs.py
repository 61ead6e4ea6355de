"""One lifecycle for every background job (gradings, Runs, folder checks): claim, beat, store, give back.

A job is a row with a status (queued -> running -> done), the token of the claim that holds it
(`claimed_by`), a heartbeat and a count of claims. Every step is one guarded UPDATE, and every
time is the database's (app.grading.clock), so a host whose clock is off neither looks dead nor
takes a live job over, whatever the job's kind. A kind says only what differs: its model, whether
a job lost with its worker goes back to the queue or ends, and what it ends with.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy import delete, insert, inspect, select, update

from app.extensions import db
from app.grading.clock import db_now
from app.models import SpentToken

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JobKind:
    """What one kind of job is: its table, its lane, and what becomes of it when its worker is lost.

    `lane` is where its tokens go: "grading" (the cpu/gpu queues, where learners' gradings run),
    "runs", or "background" (folder checks and regrades, on workers of their own, so they never
    hold a learner's grading worker; app.grading.worker.BACKGROUND gives their order).
    `ended(row)` gives the values a job ends with once it may not be tried again: always for a
    kind that is not `retried` (a Run is never run twice), after GRADING_MAX_ATTEMPTS otherwise.
    """

    name: str
    model: Any
    lane: str
    retried: bool
    ended: Callable[[Any], dict[str, Any]]
    status_name: str = "status"
    finished_name: str = "finished_at"
    created_name: str = "created_at"  # when it was asked for: restart re-enqueues the oldest first

    @property
    def status(self) -> Any:
        return getattr(self.model, self.status_name)

    @property
    def key(self) -> Any:
        return inspect(self.model).primary_key[0]

    def values(self, **named: Any) -> dict[Any, Any]:
        """Column values by attribute name, with `status` and `finished_at` mapped to this model's columns."""
        renamed = {"status": self.status_name, "finished_at": self.finished_name}
        return {getattr(self.model, renamed.get(name, name)): value for name, value in named.items()}


def claim(kind: JobKind, job_id: str, token: str, *guard: Any, delivery: bool = False) -> bool:
    """queued -> running in one statement (and one more attempt), so two workers never take one job.

    `guard`: more WHERE conditions the claim must meet in the same statement (a running cap).
    `delivery`: the token is a queue delivery's id (Celery's), recorded as spent with the claim
    (spent_tokens), in the same transaction, so the sweep never counts it as on its way again.
    """
    now = db_now()
    claimed = db.session.execute(
        update(kind.model).where(kind.key == job_id, kind.status == "queued", *guard)
        .values(kind.values(status="running", started_at=now, heartbeat_at=now, claimed_by=token,
                            attempts=kind.model.attempts + 1))
    ).rowcount == 1  # type: ignore[attr-defined]
    if claimed and delivery and db.session.get(SpentToken, token) is None:  # a redelivery is spent already
        db.session.execute(insert(SpentToken).values(token=token, spent_at=db_now()))
    db.session.commit()
    return claimed


def store(kind: JobKind, job_id: str, token: str, **values: Any) -> bool:
    """End the job with `values` if this claim still holds it (a job taken over or stopped refuses it)."""
    stored = db.session.execute(
        update(kind.model).where(kind.key == job_id, kind.model.claimed_by == token, kind.status == "running")
        .values(kind.values(status="done", finished_at=db_now(), **values))
    )
    db.session.commit()
    return stored.rowcount == 1  # type: ignore[attr-defined, no-any-return]


def still_ours(kind: JobKind, job_id: str, token: str) -> bool:
    """The job is running under this claim (not stopped, not taken over)."""
    row = db.session.execute(select(kind.status, kind.model.claimed_by).where(kind.key == job_id)).first()
    db.session.commit()
    return row is not None and row[0] == "running" and row[1] == token


def beat(kind: JobKind, job_id: str, token: str) -> None:
    """Touch the job's heartbeat, by the database's clock, while this claim holds it."""
    db.session.execute(update(kind.model).where(kind.key == job_id, kind.model.claimed_by == token)
                       .values(heartbeat_at=db_now()))
    db.session.commit()


@contextmanager
def beating(app: Flask, kind: JobKind, job_id: str, token: str, *,
            on_lost: Callable[[], None] | None = None, watch_s: float | None = None) -> Iterator[None]:
    """Beat the heartbeat every GRADING_HEARTBEAT_S while the job is worked on, from a thread of its own.

    With `on_lost`, the job is also watched every `watch_s`: once it is no longer this claim's
    (a learner's Stop ended the row, another worker took it over), `on_lost` is called once.
    The database is how a Stop reaches the worker, wherever it runs.
    """
    beat_every = float(app.config.get("GRADING_HEARTBEAT_S", 5))
    every = min(beat_every, watch_s) if on_lost is not None and watch_s else beat_every
    done = threading.Event()

    def loop() -> None:
        since_beat = 0.0
        while not done.wait(every):
            since_beat += every
            try:
                with app.app_context():
                    if on_lost is not None and not still_ours(kind, job_id, token):
                        on_lost()
                        return
                    if since_beat >= beat_every:
                        beat(kind, job_id, token)
                        since_beat = 0.0
            except Exception:  # a missed beat is retried; a long outage makes the job reclaimable
                log.warning("heartbeat of %s %s failed", kind.name, job_id, exc_info=True)

    thread = threading.Thread(target=loop, name=f"{kind.name}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=every + 1)


class GivenBack(NamedTuple):
    """What give_back did: the ids put back in the queue, and the ids ended."""

    back: list[str]
    ended: list[str]


def give_back(app: Flask, kind: JobKind, *condition: Any, count_attempt: bool = True) -> GivenBack:
    """Running jobs matching `condition`: queued again, or ended (`kind.ended`) when they may not be tried again.

    Only while the same claim still holds the job: a result stored meanwhile wins. claimed_by
    stays on a job put back, so a late result under the dead claim is refused (only a running
    job takes one). Returns the ids put back in the queue.
    """
    limit = int(app.config.get("GRADING_MAX_ATTEMPTS", 3))
    rows = db.session.scalars(select(kind.model).where(kind.status == "running", *condition)).all()
    given = GivenBack([], [])
    for row in rows:
        job_id, claimed_by = inspect(row).identity[0], row.claimed_by
        still = update(kind.model).where(kind.key == job_id, kind.status == "running",
                                         kind.model.claimed_by == claimed_by)
        if not kind.retried or (count_attempt and row.attempts >= limit):
            db.session.execute(still.values(kind.values(status="done", finished_at=db_now(), **kind.ended(row))))
            log.warning("%s %s lost its worker (%d attempt(s)): ended", kind.name, job_id, row.attempts)
            given.ended.append(str(job_id))
        else:
            db.session.execute(still.values(kind.values(status="queued")))
            given.back.append(str(job_id))
    db.session.commit()
    return given


def reclaim_stale(app: Flask, kind: JobKind) -> GivenBack:
    """Running jobs whose heartbeat stopped for GRADING_STALE_AFTER_S (their host died), by the database's clock."""
    stale_after = float(app.config.get("GRADING_STALE_AFTER_S", 60))
    with app.app_context():
        given = give_back(app, kind, kind.model.heartbeat_at < db_now(stale_after))
    if given.back or given.ended:
        log.warning("took over %s job(s) whose worker stopped: %s", kind.name, given)
    return given


def release(app: Flask, kinds: Iterator[JobKind] | list[JobKind], token: str) -> list[str]:
    """The process that claimed with `token` died (Celery's WorkerLostError): give its job back now; the ids back."""
    returned: list[str] = []
    with app.app_context():
        for kind in kinds:
            returned += give_back(app, kind, kind.model.claimed_by == token).back
    if returned:
        log.warning("a worker process died; job(s) back in the queue: %s", returned)
    return returned


def restart(app: Flask, kind: JobKind) -> list[str]:
    """At an in-process start: running jobs have no thread here any more; the queued ids, oldest first.

    A retried kind's running jobs go back to the queue without counting the lost attempt (the
    server stopped, not the learner's code); the others end.
    """
    with app.app_context():
        if not inspect(db.engine).has_table(kind.model.__tablename__):
            return []  # a fresh database before `flask db upgrade`
        give_back(app, kind, count_attempt=False)
        ids = list(db.session.scalars(select(kind.key).where(kind.status == "queued")
                                      .order_by(getattr(kind.model, kind.created_name))))
        db.session.commit()
    return [str(job_id) for job_id in ids]


def spent(tokens: list[str]) -> set[str]:
    """Those of `tokens` that claimed a job (claim with `delivery`): they will never claim another."""
    found = set(db.session.scalars(select(SpentToken.token).where(SpentToken.token.in_(tokens))))
    db.session.commit()
    return found


def forget_spent(older_than_s: float) -> int:
    """Drop spent tokens older than any delivery kombu still keeps unacknowledged (the visibility timeout)."""
    gone = db.session.execute(delete(SpentToken).where(SpentToken.spent_at < db_now(older_than_s)))
    db.session.commit()
    return int(gone.rowcount or 0)  # type: ignore[attr-defined]
