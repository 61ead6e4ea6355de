"""A warm pool starts a replacement when the job it replaces ends, not while that job runs."""

from __future__ import annotations

import threading

from grader.sandboxes import pool


class FakeMember:
    """Stands in for a warm sandbox: alive until discarded."""

    def __init__(self) -> None:
        self.discarded = False

    def alive(self) -> bool:
        return not self.discarded

    def discard(self) -> None:
        self.discarded = True


def counting_pool(name: str) -> tuple[pool.WarmPool, threading.Semaphore]:
    spawned = threading.Semaphore(0)

    def spawn() -> FakeMember:
        spawned.release()
        return FakeMember()

    return pool.WarmPool(name, spawn, size=1), spawned


def test_the_replacement_waits_for_the_job_then_starts_at_once(monkeypatch):
    monkeypatch.setattr(pool, "REFILL_GRACE_S", 600.0)  # only finished() can end the wait here
    warm, spawned = counting_pool("refill-finished")
    try:
        assert warm.wait_filled(10) and spawned.acquire(timeout=1)
        member = warm.take()
        assert member is not None
        assert not spawned.acquire(timeout=0.5), "refilled while the job was still running"
        member.discard()
        warm.finished(member)
        assert spawned.acquire(timeout=10), "no replacement after the job ended"
        assert warm.wait_filled(10)
    finally:
        warm.close()


def test_a_job_that_never_reports_back_holds_the_refill_only_for_the_grace(monkeypatch):
    monkeypatch.setattr(pool, "REFILL_GRACE_S", 0.3)
    warm, spawned = counting_pool("refill-grace")
    try:
        assert warm.wait_filled(10) and spawned.acquire(timeout=1)
        assert warm.take() is not None  # and its caller never calls finished()
        assert spawned.acquire(timeout=10), "the refill waited past its grace"
        assert warm.wait_filled(10)
    finally:
        warm.close()


def test_finished_for_a_member_the_pool_never_lent_changes_nothing():
    warm, _ = counting_pool("refill-stranger")
    try:
        warm.finished(FakeMember())  # run-mode jobs make their own sandbox when none is idle
        assert warm.wait_filled(10)
    finally:
        warm.close()
