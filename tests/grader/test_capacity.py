"""Host-sized defaults (grader.capacity) and the background lane's one-at-a-time slot."""

from __future__ import annotations

import shutil
import threading
import time

import pytest

from grader import capacity
from grader.sandboxes import lane, pool


def test_pool_size_follows_cores_until_memory_runs_short(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capacity, "cores", lambda: 4)
    monkeypatch.setattr(capacity, "available_mb", lambda: 64_000)
    assert capacity.default_workers() == 4
    assert capacity.default_pool_size() == 4
    monkeypatch.setattr(capacity, "available_mb", lambda: 3 * capacity.MEMBER_MB * 2)  # room for 2
    assert capacity.default_pool_size() == 2
    monkeypatch.setattr(capacity, "available_mb", lambda: 500)  # none fits: still one
    assert capacity.default_pool_size() == 1


def test_an_explicit_pool_size_wins_and_unset_means_the_host_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capacity, "default_pool_size", lambda: 3)
    monkeypatch.delenv("GRADER_POOL_SIZE", raising=False)
    assert pool.pool_size() == 3
    monkeypatch.setenv("GRADER_POOL_SIZE", "0")
    assert pool.pool_size() == 0
    monkeypatch.setenv("GRADER_POOL_SIZE", "5")
    assert pool.pool_size() == 5


def test_background_jobs_run_one_at_a_time_and_learners_never_wait_for_the_slot() -> None:
    running, most = [0], [0]
    lock = threading.Lock()

    def background() -> None:
        with lane.background_slot(True):
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            time.sleep(0.05)
            with lock:
                running[0] -= 1

    threads = [threading.Thread(target=background) for _ in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(0.01)
    started = time.monotonic()
    with lane.background_slot(False):  # a learner's job: no slot to wait for
        waited = time.monotonic() - started
    for thread in threads:
        thread.join()
    assert most[0] == 1
    assert waited < 0.04


def test_a_background_command_runs_lowered() -> None:
    if shutil.which("nice") is None:
        pytest.skip("no `nice` program here: background commands run unlowered")
    command = lane.lowered(["python", "-c", "pass"], nice=10)
    assert command[1:] == ["-n", "10", "python", "-c", "pass"]
