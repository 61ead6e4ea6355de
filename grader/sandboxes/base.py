"""The sandbox interface: one job in, one results document out, whatever the backend."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from grader.loader import Exercise

log = logging.getLogger(__name__)

# Time the harness needs besides the learner's own limit (interpreter and torch start-up,
# pytest collection); the backend kills the whole job after limit + this.
HARNESS_SLACK_S = 30


@dataclass(frozen=True)
class Job:
    """One submission to grade."""

    exercise: Exercise
    code: str
    lang: str = "en"
    # Set by the caller to end the job early (a learner's Stop): the backend kills the sandbox.
    cancel: threading.Event | None = None
    # Work no learner waits for (an instructor's check): grader.sandboxes.lane.
    background: bool = False
    # Told what the job waits for, for the learner's progress: STARTING when no warm sandbox
    # was free and one is being started for this job (cold, or a warm one still starting).
    on_phase: Callable[[str], None] | None = None


STARTING = "starting"


def report_phase(job: Job, phase: str) -> None:
    """Tell the job's caller its phase; a failing listener never fails the grading."""
    if job.on_phase is None:
        return
    try:
        job.on_phase(phase)
    except Exception:  # noqa: BLE001 -- progress is a courtesy; the grading goes on
        log.warning("could not report phase %s", phase, exc_info=True)


class Sandbox(Protocol):
    """A place where the harness runs with the learner's code: all the grading layer knows of a backend."""

    name: str
    isolated: bool  # whether learner code is kept from the host and from other jobs

    def run(self, job: Job) -> dict[str, Any]:
        """Grade the job and return a results document (never raises for the learner's faults)."""
        ...

    def execute(self, job: Job) -> dict[str, Any]:
        """Run the submission's top level, no tests: a run document (see validate_run_document)."""
        ...

    def warm_up(self, wait_s: float = 0.0) -> bool:
        """Start this process's warm sandboxes now; whether they were all ready within `wait_s` (0: no wait)."""
        ...

    def remove_orphans(self, *, this_worker: bool = False) -> int:
        """Remove what the sandboxes of grading workers that are gone left behind (or, with
        `this_worker`, everything of this worker's: its shutdown); returns how many."""
        ...


def warm_up_pool(pool: Any, wait_s: float) -> bool:
    """Start a warm pool; whether it was full within `wait_s` seconds (0: only whether it is full now)."""
    pool.start()
    return pool.wait_filled(wait_s) if wait_s > 0 else pool.idle_count() >= pool.size


# -- run without grading -------------------------------------------------------------------
RUN_STATUSES = ("ok", "error")
RUN_ERROR_KINDS = ("syntax", "runtime", "timeout", "memory", "output-limit", "stopped", "internal")
CANCEL_POLL_S = 0.2  # how soon a cancelled job's sandbox is killed


def validate_run_document(doc: Any) -> dict[str, Any]:
    """A run document as a sandbox returns it; ValueError when it is not one."""
    if not isinstance(doc, dict) or doc.get("status") not in RUN_STATUSES:
        raise ValueError("not a run document")
    if not isinstance(doc.get("output"), str) or not isinstance(doc.get("duration_s"), (int, float)):
        raise ValueError("run document lacks output or duration")
    error = doc.get("error")
    if (doc["status"] == "ok") != (error is None):
        raise ValueError("run document's status and error disagree")
    if error is not None:
        if not isinstance(error, dict) or error.get("kind") not in RUN_ERROR_KINDS:
            raise ValueError("bad run error")
        if not isinstance(error.get("message"), str):
            raise ValueError("run error without a message")
        line = error.get("line")
        if line is not None and not isinstance(line, int):
            raise ValueError("bad run error line")
    return {"status": doc["status"], "output": doc["output"], "duration_s": doc["duration_s"],
            "error": None if error is None else {
                "kind": error["kind"], "message": error["message"], "line": error.get("line"),
                "traceback": str(error.get("traceback", ""))}}


def internal_run(message: str, *, kind: str = "internal", duration_s: float = 0.0) -> dict[str, Any]:
    """A run document for a run that produced none of its own (timeout, platform fault)."""
    return {"status": "error", "output": "", "duration_s": duration_s,
            "error": {"kind": kind, "message": message, "line": None, "traceback": ""}}


@contextmanager
def kill_on_cancel(cancel: threading.Event | None, kill: Callable[[], None]) -> Iterator[threading.Event]:
    """While the block runs, call `kill` once if `cancel` is set; yields an event telling whether it did."""
    killed = threading.Event()
    if cancel is None:
        yield killed
        return
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if cancel.wait(CANCEL_POLL_S):
                if not done.is_set():
                    killed.set()
                    try:
                        kill()
                    except Exception as exc:  # noqa: BLE001 -- it ended by itself meanwhile (docker: 409)
                        log.debug("cancelled job's sandbox was already gone: %s", exc)
                return

    thread = threading.Thread(target=watch, name="sandbox-cancel", daemon=True)
    thread.start()
    try:
        yield killed
    finally:
        done.set()
        thread.join(timeout=CANCEL_POLL_S + 5)
