"""This process's docker engine: its client, job slots, GPUs and janitor clock; and whether one is here."""

from __future__ import annotations

import logging
import os
import threading
import time

from grader.sandboxes import resources
from grader.sandboxes.docker.gpus import GpuScheduler, host_gpu_ids
from grader.sandboxes.docker.image import image_name, image_state
from grader.sandboxes.docker.janitor import sweep

log = logging.getLogger(__name__)
AVAILABLE_TTL_S = 30.0  # how long docker_available() trusts its last answer
JANITOR_EVERY_S = 60.0


class Engine:
    """Per-process state shared by every DockerSandbox: client, job slots, GPUs, janitor clock."""

    def __init__(self) -> None:
        import docker

        jobs = max_jobs()
        # Each job holds a connection while it waits; the janitor and inspects need more.
        self.client = docker.from_env(timeout=30, max_pool_size=jobs + 4)
        self.slots = threading.BoundedSemaphore(jobs)
        self.gpus = GpuScheduler(host_gpu_ids(self.client.info()))
        self.last_sweep = 0.0
        self.sweep_lock = threading.Lock()

    def maybe_sweep(self) -> None:
        with self.sweep_lock:
            if time.monotonic() - self.last_sweep < JANITOR_EVERY_S:
                return
            self.last_sweep = time.monotonic()
        try:
            sweep(self.client)
        except Exception as exc:  # noqa: BLE001 -- housekeeping must never fail a job
            log.warning("janitor sweep failed: %s", exc)


def engine() -> Engine:
    """This process's engine, connected on first use (a forked child, such as a Celery prefork
    worker, opens its own: grader.sandboxes.resources)."""
    return resources.shared("docker engine", Engine)


def max_jobs() -> int:
    """Concurrent jobs per process (GRADER_MAX_JOBS), default one per CPU."""
    try:
        return max(1, int(os.environ.get("GRADER_MAX_JOBS", "")))
    except ValueError:
        return max(1, os.cpu_count() or 1)


_available: tuple[float, bool] = (0.0, False)  # (when, answer): a cache, true in a child too


def docker_available() -> bool:
    """Whether an engine answers and holds a current sandbox image; cached for a few seconds."""
    global _available
    checked_at, answer = _available
    if time.monotonic() - checked_at < AVAILABLE_TTL_S:
        return answer
    try:
        import docker

        client = docker.from_env(timeout=3)
        try:
            state = image_state(client)
        finally:
            client.close()
        # A stale image would grade with other grader code than this host runs: `auto`
        # falls back rather than give verdicts nobody can reproduce. (GRADER_SANDBOX=docker
        # still uses it, with this warning.)
        if state == "stale":
            log.warning("sandbox image %s was built from other grader code; "
                        "run `make sandbox-image`", image_name())
        answer = state == "current"
    except Exception:  # noqa: BLE001 -- no SDK, no socket, no image: all mean "not here"
        answer = False
    _available = (time.monotonic(), answer)
    return answer
