"""The sandbox interface: one job in, one results document out, whatever the backend."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from grader.loader import Exercise

# Time the harness needs besides the learner's own limit (interpreter and torch start-up,
# pytest collection); the backend kills the whole job after limit + this.
HARNESS_SLACK_S = 30


@dataclass(frozen=True)
class Job:
    """One submission to grade."""

    exercise: Exercise
    code: str
    lang: str = "en"


class Sandbox(Protocol):
    """A place where the harness runs with the learner's code."""

    name: str
    isolated: bool

    def run(self, job: Job) -> dict[str, Any]:
        """Grade the job and return a results document (never raises for the learner's faults)."""
        ...
