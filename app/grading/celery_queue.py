"""The web side of Celery workers: publish one token per stored job (grading, Run, check, regrade) to its queue."""

from __future__ import annotations

import json
import logging
import os
import socket
import time
from typing import TYPE_CHECKING, Any

from celery import Celery

from app.extensions import db
from app.grading.kinds import KINDS
from app.grading.maintenance import top_up
from app.grading.routing import BACKGROUND_QUEUES, GRADING_QUEUE_OF, QUEUES, RUN_QUEUE, queue_kind

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)

TASK = "grading.grade"
# Runs (the Run button) have a task and a queue of their own: a `-Q runs` worker takes them,
# so a Run never takes a grading worker's slot nor waits behind gradings (app.grading.runs).
RUN_TASK = "grading.run"
# Folder checks and regrades: a task of their own on the background queues ("background",
# "background-gpu"), taken by workers of their own, so a check never holds a grading worker.
BACKGROUND_TASK = "grading.background"
# A publish that cannot reach Redis fails within about a second: the request answers 503
# and the submission is not kept, rather than hanging the learner's request.
# Each worker's report of its sandbox (report_isolation), read by the web process for the footer.
ISOLATION_KEY = "learnai:isolated:"
ISOLATION_CACHE_S = 10.0
PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.3, "interval_max": 0.5}


def make_celery(config: dict[str, Any]) -> Celery:
    """A Celery app whose settings make a lost worker's job come back instead of vanishing."""
    celery = Celery("learnai", broker=config["CELERY_BROKER_URL"])
    # Each option is set here once (docs/scaling.md, "Celery's options"); the task sets none.
    celery.conf.update(
        # Acknowledged after grading; with reject_on_worker_lost a killed pool process's message
        # goes back to Redis at once, and the worker's main process gives its job back
        # (celery_app.GradingRequest), so the redelivered token grades it within seconds.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # a busy worker does not sit on tokens others could run
        # Redis lost while grading: finish and store the result (it goes to the database, not
        # Redis). Celery 6 would cancel the running grading by default; say what we want.
        worker_cancel_long_running_tasks_on_connection_loss=False,
        task_ignore_result=True,  # results live in the platform's database
        task_serializer="json",
        accept_content=["json"],
        task_default_queue="cpu",
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            # Longer than any grading (time limit, GPU wait, container start): a message is only
            # handed out again when its worker is gone, never while it is still being graded.
            # A whole host's death is handled by the heartbeat (a minute), not by this.
            "visibility_timeout": config["GRADING_VISIBILITY_TIMEOUT_S"],
            "socket_connect_timeout": 3,
            "socket_timeout": 5,
        },
    )
    return celery


class CeleryQueue:
    """Publishes grading tokens to Redis; `celery -A app.celery_worker worker` grades them."""

    def __init__(self, app: Flask):
        self.app = app
        self.celery = make_celery(app.config)
        self._isolation = (False, float("-inf"))  # (isolated, when it was read)

    def publish(self, queue: str, job_id: str = "") -> None:
        """One token to this queue: a grading queue's ("cpu", "gpu"), a background one's, or the Run lane's."""
        if queue == RUN_QUEUE:
            task, args = RUN_TASK, [job_id]
        elif queue in GRADING_QUEUE_OF:
            task, args = BACKGROUND_TASK, [job_id, GRADING_QUEUE_OF[queue]]
        else:
            task, args = TASK, [job_id, queue]
        self.celery.send_task(task, args=args, queue=queue, retry=True, retry_policy=PUBLISH_RETRY)

    def enqueue(self, kind: str, job_id: str) -> None:
        job_kind = KINDS[kind]
        if job_kind.lane == "runs":
            self.publish(RUN_QUEUE, job_id)
            return
        row = db.session.get(job_kind.model, job_id)
        exercise = self.app.extensions["exercise_catalog"].get(row.exercise_id) if row else None
        grading_queue = queue_kind(self.app, exercise)
        self.publish(BACKGROUND_QUEUES[grading_queue] if job_kind.lane == "background" else grading_queue, job_id)

    def wake(self, queue: str | None, *, background: bool = False) -> None:
        """A job of this grading queue ended, in its lane: publish the tokens its claimable jobs lack (top_up)."""
        for name in (queue,) if queue else QUEUES:
            top_up(self.app, self, BACKGROUND_QUEUES[name] if background else name)

    def recover(self) -> list[str]:
        """The workers reclaim and re-enqueue (app.grading.maintenance); a web start does not."""
        return []

    def try_lock(self, name: str, seconds: float) -> bool:
        """Take a lock that expires by itself after `seconds` (Redis SET NX PX); False if held."""
        with self.celery.connection_for_write() as connection:
            client = connection.default_channel.client
            return bool(client.set(f"learnai:lock:{name}", os.getpid(), nx=True, px=int(seconds * 1000)))

    def backlog(self, kind: str) -> int:
        """Tokens waiting in Redis for this queue (kombu keeps a queue as a Redis list)."""
        with self.celery.connection_for_write() as connection:
            client = connection.default_channel.client
            return int(client.llen(kind))

    def reserved(self, kind: str) -> list[str]:
        """Task ids of this queue's tokens delivered to a worker and not yet acknowledged.

        kombu keeps them in its "unacked" hash: tokens a worker holds (running, or reserved
        while it is busy) and tokens of a worker that died (back only after the visibility
        timeout). The sweep tells them apart by whether the token has claimed a job.
        """
        with self.celery.connection_for_write() as connection:
            channel = connection.default_channel
            ids = []
            for raw in channel.client.hvals(channel.unacked_key):
                try:
                    message, _, routing_key = json.loads(raw)
                    task_id = message["headers"]["id"]
                except (ValueError, KeyError, TypeError):
                    continue
                if routing_key == kind:
                    ids.append(str(task_id))
            return ids

    def report_isolation(self, isolated: bool, seconds: float) -> None:
        """A worker says, for `seconds`, whether its sandbox isolates learners' code (the footer tells learners)."""
        with self.celery.connection_for_write() as connection:
            key = f"{ISOLATION_KEY}{socket.gethostname()}:{os.getpid()}"
            connection.default_channel.client.set(key, int(isolated), ex=max(1, int(seconds)))

    def sandbox_isolated(self) -> bool:
        """Learners' code runs on the workers: isolated when every worker that reported lately says so.

        Asked at most every ISOLATION_CACHE_S; while Redis is away the last answer stands.
        """
        if time.monotonic() - self._isolation[1] < ISOLATION_CACHE_S:
            return self._isolation[0]
        try:
            with self.celery.connection_for_write() as connection:
                client = connection.default_channel.client
                reports = [client.get(key) for key in client.scan_iter(f"{ISOLATION_KEY}*")]
            self._isolation = (bool(reports) and all(report == b"1" for report in reports), time.monotonic())
        except Exception:
            log.warning("could not read the workers' sandbox reports", exc_info=True)
        return self._isolation[0]

    def shutdown(self, wait: bool = True) -> None:
        self.celery.close()


__all__ = ["BACKGROUND_TASK", "QUEUES", "RUN_QUEUE", "RUN_TASK", "TASK", "CeleryQueue", "make_celery"]
