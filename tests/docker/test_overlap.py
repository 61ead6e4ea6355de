"""Gradings that overlap in the docker sandbox each end with their own verdict, never the grader's failure."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grader.loader import load_exercise
from grader.sandboxes.base import Job
from grader.sandboxes.docker import DockerSandbox
from grader.sandboxes.docker.engine import engine

pytestmark = [pytest.mark.docker, pytest.mark.slow]
AT_ONCE, ROUNDS = 3, 4


def test_the_measurement_solution_graded_three_at_a_time_passes_every_time(
        roomy_exercises: Path, no_residue: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # amp-measure-speed runs the longest tests (the timed loops): before the fix, 6 of 12 of
    # these gradings ended "no results file; exit code 0", as a class's did in production
    # (the sandbox's stdin lifeline read fd 0, which pytest's capture points at /dev/null).
    exercise = load_exercise(roomy_exercises / "amp-measure-speed")  # verdicts, not speed
    solution = (exercise.path / "solution.py").read_text(encoding="utf-8")
    # Three job slots, whatever this machine's core count: the three really run together.
    monkeypatch.setattr(engine(), "slots", threading.BoundedSemaphore(AT_ONCE))
    sandbox = DockerSandbox()
    docs = []
    with ThreadPoolExecutor(max_workers=AT_ONCE) as pool:
        for _ in range(ROUNDS):
            docs += pool.map(lambda _n: sandbox.run(Job(exercise=exercise, code=solution)), range(AT_ONCE))
    verdicts = [(doc["status"], doc["error_kind"], doc["message"][:160]) for doc in docs]
    assert len(docs) == AT_ONCE * ROUNDS
    assert all(doc["status"] == "pass" and doc["score"] == 1.0 for doc in docs), verdicts
