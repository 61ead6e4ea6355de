"""Container settings: every job is locked down; exercise limits never exceed the platform caps."""

from __future__ import annotations

import os
from typing import Any

import pytest

from grader.sandboxes.docker import max_jobs
from grader.sandboxes.docker.contract import ENTRY, JOB_FILE, entry_command
from grader.sandboxes.docker.settings import Caps, container_kwargs, wall_limit_s
from grader.schema import Limits


def settings(**limits: Any) -> dict[str, Any]:
    return container_kwargs(Limits(**limits), job_id="abc", deadline=100, max_idle_s=60, caps=Caps())


def test_every_job_is_locked_down() -> None:
    kw = settings()
    assert kw["network_mode"] == "none" and kw["read_only"] is True
    assert kw["cap_drop"] == ["ALL"] and set(kw["cap_add"]) == {"CHOWN", "SETUID", "SETGID", "KILL"}
    assert kw["security_opt"] == ["no-new-privileges"]
    assert kw["ipc_mode"] == "private" and kw["init"] is True
    assert kw["mem_limit"] == kw["memswap_limit"]  # no swap
    assert "size=" in kw["tmpfs"]["/tmp"] and "noexec" in kw["tmpfs"]["/tmp"]
    assert {u["Name"] for u in kw["ulimits"]} == {"nofile", "fsize", "core"}
    assert kw["log_config"]["config"]["max-size"]
    assert kw["labels"]["learnai.job"] == "abc" and kw["labels"]["learnai.deadline"] == "100"
    assert kw["labels"]["learnai.owner"].endswith(f":{os.getpid()}")
    assert "privileged" not in kw and "volumes" not in kw and "device_requests" not in kw


def runner_user(command: list[str]) -> str:
    return command[command.index("--runner-user") + 1]


def test_the_harness_drops_root_and_runs_learners_under_a_uid_of_their_own() -> None:
    command = entry_command(234567, 60)
    assert command[:4] == ["python3", "-m", "grader.sandboxes.docker.entry", "warm"] and ENTRY == command[2]
    assert runner_user(command) == "234567:234567"
    uids = {runner_user(settings()["command"]) for _ in range(20)}
    assert len(uids) > 15  # a fresh one per job
    assert command[command.index("--job-file") + 1] == JOB_FILE
    assert "--lifeline" in command  # the container ends itself when its process dies


def test_limits_follow_the_exercise_under_the_caps() -> None:
    small, big = settings(memory_mb=512, processes=64), settings(memory_mb=4096, processes=1024)
    assert int(small["mem_limit"][:-1]) < int(big["mem_limit"][:-1])
    assert small["pids_limit"] < big["pids_limit"]
    capped = container_kwargs(Limits(memory_mb=4096), job_id="y", deadline=0, max_idle_s=60,
                              caps=Caps(memory_mb=1024, cpus=0.5))
    assert capped["mem_limit"] == "1024m" and capped["nano_cpus"] == 500_000_000


def test_the_wall_clock_outlasts_the_harness_own_timeout() -> None:
    assert wall_limit_s(Limits(time_s=10)) > 10 + 20


def test_caps_and_job_slots_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_DOCKER_CPUS", "2")
    monkeypatch.setenv("GRADER_DOCKER_MAX_MEMORY_MB", "3000")
    assert Caps.from_env() == Caps(cpus=2.0, memory_mb=3000)
    monkeypatch.setenv("GRADER_MAX_JOBS", "3")
    assert max_jobs() == 3
    monkeypatch.setenv("GRADER_MAX_JOBS", "lots")
    assert max_jobs() >= 1
