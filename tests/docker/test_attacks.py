"""Adversarial submissions in the docker sandbox: the real verdict, in time, with no residue."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from grader.loader import Exercise
from grader.sandboxes.base import Job
from grader.sandboxes.docker import DockerSandbox
from grader.sandboxes.docker import sandbox as backend

ATTACKS = Path(__file__).parent / "attacks"
CASES = sorted(p.stem for p in ATTACKS.glob("*.py"))
pytestmark = [pytest.mark.docker, pytest.mark.slow]
BACKSTOP_ROOM_S = 300  # only a harness whose clock failed would need it


def expectations(path: Path) -> dict[str, str]:
    """The `# expect-KEY: value` header lines of an attack file."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("# expect-"):
            break
        key, _, value = line[len("# expect-"):].partition(":")
        found[key.strip()] = value.strip()
    return found


def grade(exercise: Exercise, code: str) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    doc = DockerSandbox().run(Job(exercise=exercise, code=code))
    return doc, time.monotonic() - started


def record(case: str, doc: dict[str, Any], elapsed: float) -> None:
    """Append the outcome to $LEARNAI_ATTACK_REPORT (JSON lines), for docs/sandbox.md."""
    if report := os.environ.get("LEARNAI_ATTACK_REPORT"):
        with open(report, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"case": case, "status": doc["status"],
                                     "error_kind": doc["error_kind"],
                                     "seconds": round(elapsed, 1)}) + "\n")


@pytest.mark.parametrize("case", CASES)
def test_attack(case: str, quick_flagship_exercise: Exercise, roomy_flagship_exercise: Exercise,
                backstop_kills: list[str], monkeypatch: pytest.MonkeyPatch,
                no_residue: None) -> None:
    path = ATTACKS / f"{case}.py"
    expect = expectations(path)
    # A run meant to time out gets the 8 s copy (it exceeds any limit); every other run the
    # platform's largest limit, so a busy host cannot turn its verdict into a timeout.
    timeout = expect.get("error-kind") == "timeout"
    exercise = quick_flagship_exercise if timeout else roomy_flagship_exercise
    if timeout:
        # What is asked here is that the harness's own clock stops the job. The backstop
        # behind it allows 45 s for the harness to start and stop, which a host at load 20
        # on 2 cores overran (the verdict was still a timeout, from the backstop): it gets
        # room here, and has a test of its own (test_backend.py).
        monkeypatch.setattr(backend, "wall_limit_s", lambda limits: limits.time_s + BACKSTOP_ROOM_S)
    doc, elapsed = grade(exercise, path.read_text(encoding="utf-8"))
    seen = doc["message"] + doc["output"]
    record(case, doc, elapsed)

    assert doc["status"] == expect["status"], (doc["status"], doc["error_kind"], seen[-2000:])
    assert doc["error_kind"] == expect.get("error-kind"), (doc["error_kind"], seen[-2000:])
    assert "ESCAPED" not in seen, seen[-2000:]
    if "output" in expect:  # the attack ran and reported its own failure
        assert expect["output"] in doc["output"], doc["output"][-2000:]
    if doc["status"] == "error":
        assert doc["message"], "an error always tells the learner what happened"
    if "line" in expect:  # the runner inside the container reported where the code was
        assert doc["line"] == int(expect["line"]), (doc["line"], doc["message"])
        assert expect["message"] in doc["message"], doc["message"]
    # Ended by the job's own limits (the harness's clock, memory, pids), never by the
    # backend's backstop kill: asked of the backend, not timed, so a slow host cannot fail it.
    assert backstop_kills == [], f"the backstop killed the job after {elapsed:.0f} s"

    if not case.startswith("control_"):  # the next learner is graded as if nothing happened
        honest = (ATTACKS / "control_honest_right.py").read_text(encoding="utf-8")
        after, _ = grade(roomy_flagship_exercise, honest)
        assert after["status"] == "pass", after["message"][-2000:]
