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
    from grader.sandboxes.docker.warm import docker_pool
    from grader.schema import Limits

    monkeypatch.setenv("GRADER_SANDBOX_IMAGE", "learnai-sandbox:one")
    first = docker_pool(None, Limits())  # made lazily: no engine is asked until a take
    assert docker_pool(None, Limits()) is first
    try:
        monkeypatch.setenv("GRADER_SANDBOX_IMAGE", "learnai-sandbox:two")
        assert docker_pool(None, Limits()) is not first  # never a container of the old image
    finally:
        pool.close_all()


class GatedStarts:
    """Members whose start the test lets finish one at a time; counts starts running at once."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.gate = threading.Semaphore(0)
        self.lock = threading.Lock()
        self.running = 0
        self.most_at_once = 0
        self.hurried = threading.Event()

    def spawn(self) -> FakeMember:
        with self.lock:
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        try:
            assert self.gate.acquire(timeout=30), "the test never let this start finish"
            if self.fail:
                raise RuntimeError("this start fails")
            return FakeMember()
        finally:
            with self.lock:
                self.running -= 1

    def hurry(self) -> None:
        self.hurried.set()


def wait_for(condition, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def test_missing_members_start_at_once_not_one_after_another():
    starts = GatedStarts()
    warm = pool.WarmPool("parallel", starts.spawn, size=3)
    warm.start()
    try:
        assert wait_for(lambda: starts.running == 3), f"{starts.running} of 3 starts running"
        for _ in range(3):
            starts.gate.release()
        assert warm.wait_filled(10)
        assert starts.most_at_once == 3
    finally:
        warm.close()


def test_an_empty_pool_hands_over_a_member_still_starting_and_hurries_it(monkeypatch):
    monkeypatch.setattr(pool, "REFILL_GRACE_S", 600.0)  # no replacement starts during the test
    starts = GatedStarts()
    warm = pool.WarmPool("take-over", starts.spawn, size=1, hurry=starts.hurry)
    try:
        warm.start()
        assert wait_for(lambda: starts.running == 1)  # its one member is starting
        got: list[object] = []
        taker = threading.Thread(target=lambda: got.append(warm.take()))
        taker.start()
        assert starts.hurried.wait(10), "the start the job waits for was not hurried"
        assert taker.is_alive(), "an empty pool with a start under way answered before it was ready"
        starts.gate.release()
        taker.join(10)
        assert got and isinstance(got[0], FakeMember) and got[0].alive()
        # One start, one job: a second job finds nothing starting for it and goes cold at once.
        assert warm.take() is None
    finally:
        starts.gate.release()
        warm.close()


def test_a_job_waiting_for_a_start_that_fails_goes_cold(monkeypatch):
    starts = GatedStarts(fail=True)
    warm = pool.WarmPool("take-over-fails", starts.spawn, size=1, hurry=starts.hurry)
    try:
        warm.start()
        assert wait_for(lambda: starts.running == 1)
        got: list[object] = []
        taker = threading.Thread(target=lambda: got.append(warm.take()))
        taker.start()
        assert starts.hurried.wait(10)
        starts.gate.release()  # the start fails
        taker.join(10)
        assert not taker.is_alive() and got == [None]
    finally:
        warm.close()


def test_without_a_hurry_hook_an_empty_pool_answers_at_once():
    starts = GatedStarts()
    warm = pool.WarmPool("no-take-over", starts.spawn, size=1)
    try:
        warm.start()
        assert wait_for(lambda: starts.running == 1)
        began = time.monotonic()
        assert warm.take() is None  # local pools: a fresh fork of the zygote costs what a refill does
        assert time.monotonic() - began < 1.0
    finally:
        starts.gate.release()
        warm.close()
