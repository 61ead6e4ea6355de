"""A warm pool's life cycle: members retired before their idle limit, replacements started after the job."""

from __future__ import annotations

import threading
import time

from grader.sandboxes import pool


class FakeMember:
    """Stands in for a warm sandbox: alive until discarded."""

    def __init__(self) -> None:
        self.discarded = False

    def alive(self) -> bool:
        return not self.discarded

    def discard(self) -> None:
        self.discarded = True


def test_a_member_near_its_idle_limit_is_retired_not_handed_out(monkeypatch):
    monkeypatch.setenv("GRADER_POOL_MAX_IDLE_S", "100")
    members: list[FakeMember] = []

    def spawn() -> FakeMember:
        members.append(FakeMember())
        return members[-1]

    warm = pool.WarmPool("retire-test", spawn, size=1)
    try:
        assert warm.wait_filled(10)
        old = members[0]
        # Ready for 90 s of its 100: it could end itself while a job is handed to it.
        warm._ready_at[id(old)] = time.monotonic() - 90
        taken = warm.take()
        assert taken is not old
        assert warm.replaced == 1
        assert warm.wait_filled(10)
        fresh = warm.take()
        assert fresh is not None and fresh is not old and fresh.alive()
    finally:
        warm.close()


def counting_pool(name: str) -> tuple[pool.WarmPool, threading.Semaphore]:
    spawned = threading.Semaphore(0)

    def spawn() -> FakeMember:
        spawned.release()
        return FakeMember()

    return pool.WarmPool(name, spawn, size=1), spawned


def test_the_replacement_waits_for_the_job_then_starts_at_once(monkeypatch):
    monkeypatch.setattr(pool, "REFILL_GRACE_S", 600.0)  # only release() can end the wait here
    warm, spawned = counting_pool("refill-finished")
    try:
        assert warm.wait_filled(10) and spawned.acquire(timeout=1)
        member = warm.take()
        assert member is not None
        assert not spawned.acquire(timeout=0.5), "refilled while the job was still running"
        warm.release(member)
        assert member.discarded
        assert spawned.acquire(timeout=10), "no replacement after the job ended"
        assert warm.wait_filled(10)
    finally:
        warm.close()


def test_a_job_that_never_reports_back_holds_the_refill_only_for_the_grace(monkeypatch):
    monkeypatch.setattr(pool, "REFILL_GRACE_S", 0.3)
    warm, spawned = counting_pool("refill-grace")
    try:
        assert warm.wait_filled(10) and spawned.acquire(timeout=1)
        assert warm.take() is not None  # and its caller never calls release()
        assert spawned.acquire(timeout=10), "the refill waited past its grace"
        assert warm.wait_filled(10)
    finally:
        warm.close()


def test_releasing_a_member_the_pool_never_lent_only_discards_it():
    warm, _ = counting_pool("refill-stranger")
    try:
        stranger = FakeMember()  # run-mode jobs make their own sandbox when none is idle
        warm.release(stranger)
        assert stranger.discarded
        assert warm.wait_filled(10)
    finally:
        warm.close()


def test_another_sandbox_image_gets_its_own_docker_pool(monkeypatch):
    from grader.sandboxes.docker_warm import docker_pool
    from grader.schema import Limits

    monkeypatch.setenv("GRADER_SANDBOX_IMAGE", "learnai-sandbox:one")
    first = docker_pool(None, Limits())  # made lazily: no engine is asked until a take
    assert docker_pool(None, Limits()) is first
    try:
        monkeypatch.setenv("GRADER_SANDBOX_IMAGE", "learnai-sandbox:two")
        assert docker_pool(None, Limits()) is not first  # never a container of the old image
    finally:
        pool.close_all()
