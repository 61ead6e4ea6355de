"""The GPU scheduler is pure logic: one GPU never goes to two jobs at once; waits are bounded."""

from __future__ import annotations

import threading
import time

import pytest

from grader.sandboxes.docker.gpus import GpuScheduler, has_nvidia_runtime, host_gpu_ids


def test_hands_out_each_gpu_once() -> None:
    gpus = GpuScheduler(["0", "1"])
    first, second = gpus.acquire(timeout=0), gpus.acquire(timeout=0)
    assert {first, second} == {"0", "1"}
    assert gpus.acquire(timeout=0) is None  # both busy: no sharing
    gpus.release(first)
    assert gpus.acquire(timeout=0) == first


def test_no_gpus_means_none_at_once() -> None:
    gpus = GpuScheduler([])
    assert len(gpus) == 0
    started = time.monotonic()
    assert gpus.acquire(timeout=120) is None
    # Nothing to wait for: it answers at once, far inside the timeout (the margin is wide
    # so a busy host cannot stretch "at once" past it).
    assert time.monotonic() - started < 60


def test_waiting_ends_at_the_timeout() -> None:
    gpus = GpuScheduler(["0"])
    assert gpus.acquire() == "0"
    started = time.monotonic()
    assert gpus.acquire(timeout=0.2) is None
    # It waited (the lower bound holds on any host) and then gave up (the upper bound is
    # only "it returned": generous, as a busy host may wake it late).
    assert 0.15 < time.monotonic() - started < 60


def test_a_waiter_gets_the_released_gpu() -> None:
    gpus = GpuScheduler(["3"])
    held = gpus.acquire()
    got: list[str | None] = []
    waiter = threading.Thread(target=lambda: got.append(gpus.acquire(timeout=5)))
    waiter.start()
    time.sleep(0.1)
    gpus.release(held)
    waiter.join(timeout=5)
    assert got == ["3"]


def test_releasing_a_gpu_not_handed_out_is_a_bug() -> None:
    gpus = GpuScheduler(["0"])
    with pytest.raises(ValueError):
        gpus.release("0")
    with pytest.raises(ValueError):
        gpus.release("7")


def test_concurrent_jobs_never_share_a_gpu() -> None:
    gpus = GpuScheduler(["0", "1", "2"])
    in_use: set[str] = set()
    lock = threading.Lock()
    clashes: list[str] = []

    def job() -> None:
        for _ in range(50):
            gpu = gpus.acquire(timeout=120)  # a busy host may delay a holder a long while
            assert gpu is not None
            with lock:
                if gpu in in_use:
                    clashes.append(gpu)
                in_use.add(gpu)
            time.sleep(0.0005)
            with lock:
                in_use.discard(gpu)
            gpus.release(gpu)

    threads = [threading.Thread(target=job) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads)
    assert clashes == []
    assert sorted(gpus.free) == ["0", "1", "2"]


def test_gpus_only_with_the_nvidia_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_GPUS", "0,1")
    assert not has_nvidia_runtime({"Runtimes": {"runc": {}}})
    assert host_gpu_ids({"Runtimes": {"runc": {}}}) == []
    assert host_gpu_ids({"Runtimes": {"runc": {}, "nvidia": {}}}) == ["0", "1"]
    monkeypatch.setenv("GRADER_GPUS", "")
    assert host_gpu_ids({"Runtimes": {"nvidia": {}}}) == []
