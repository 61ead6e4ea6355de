"""Queues for tests whose own thread is the worker (they keep the tokens, run nothing), and a bounded wait."""

from __future__ import annotations

import time
from typing import Any


class StoppedQueue:
    """Accepts tokens and runs nothing, so jobs stay pending until a test works on them."""

    def __init__(self, app: Any = None) -> None:
        self.enqueued: list[tuple[str, str]] = []

    def enqueue(self, kind: str, job_id: str) -> None:
        self.enqueued.append((kind, job_id))

    def wake(self, queue: str | None, *, background: bool = False) -> None:
        pass

    def recover(self) -> list[str]:
        return []

    def sandbox_isolated(self) -> bool:
        return False

    def shutdown(self, wait: bool = True) -> None:
        pass


def wait_until(check: Any, timeout: float, what: str) -> Any:
    """A cap for something that never happens; returns as soon as it does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
