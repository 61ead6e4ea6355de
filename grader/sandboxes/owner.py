"""Which grading worker a sandbox container belongs to, and whether that worker still lives."""

from __future__ import annotations

import os
import socket

WORKER_ENV = "GRADER_WORKER_ID"  # set by a grading worker's main process, inherited by its pool


def _start_ticks(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22), or None if gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[19] if len(fields) > 19 else None


def process_identity(pid: int | None = None) -> str:
    """host:pid:start -- the start time tells a live worker from a later process with its pid."""
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}:{pid}:{_start_ticks(pid) or 0}"


def worker_identity() -> str:
    """The worker that this process grades for: its Celery main process, else this process."""
    return os.environ.get(WORKER_ENV) or process_identity()


def claim_identity_for_children() -> str:
    """Called in a worker's main process before it forks: its pool's containers carry its identity."""
    identity = process_identity()
    os.environ[WORKER_ENV] = identity
    return identity


def known_dead(identity: str) -> bool:
    """True only when the worker ran on this host (same hostname) and its process is gone.

    Workers on other hosts (or in other compose containers) cannot be seen from here: their
    containers end themselves when their worker dies (the stdin lifeline, grader/sandboxes/warm_entry.py).
    """
    host, _, rest = identity.partition(":")
    pid, _, ticks = rest.partition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    return _start_ticks(int(pid)) != ticks
