"""The document a container's job ends with: decided from what the backend saw, one kind per job mode."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from grader.messages import run_error
from grader.results import error_result, validate_document
from grader.sandboxes.base import Job, internal_run, validate_run_document
from grader.sandboxes.docker.contract import RESULTS_PATH, ResultsUnreadable, read_results

log = logging.getLogger(__name__)
LOG_TAIL_BYTES = 4096


def _elapsed(started: float) -> float:
    return round(time.monotonic() - started, 3)


@dataclass(frozen=True)
class Grading:
    """A grading's documents: a results document, whatever happened (results.py)."""

    mode: str = "grade"

    def internal(self, job: Job, detail: str, started: float) -> dict[str, Any]:
        log.warning("internal grading error for %s: %s", job.exercise.id, detail)
        message = run_error("internal", job.lang, detail=detail)
        return error_result(job.exercise.id, "internal", message, duration_s=_elapsed(started)).to_dict()

    def stopped(self, job: Job, started: float) -> dict[str, Any]:
        message = run_error("stopped", job.lang, seconds=f"{_elapsed(started):.1f}")
        return error_result(job.exercise.id, "internal", message, duration_s=_elapsed(started)).to_dict()

    def decide(self, job: Job, container: Any, timed_out: bool, started: float) -> dict[str, Any]:
        """Decide the document from what we saw, never from exit codes or stdout."""
        limits = job.exercise.config.limits
        state = container.attrs.get("State", {})
        if timed_out:
            return error_result(job.exercise.id, "timeout", run_error(
                "timeout", job.lang, limit=f"{limits.time_s:g}"), duration_s=_elapsed(started)).to_dict()
        doc: dict[str, Any] | None = None
        problem = ""
        try:
            doc = read_results(container, RESULTS_PATH, validate=validate_document)
        except ResultsUnreadable as exc:
            problem = str(exc)
        if state.get("OOMKilled") and (doc is None or doc.get("error_kind") != "memory"):
            # The cgroup's OOM killer struck (perhaps a child the harness never saw die):
            # whatever the harness concluded, the run did not get the memory it needed.
            output = doc.get("output", "") if doc else ""
            return error_result(job.exercise.id, "memory", run_error(
                "memory", job.lang, limit=str(limits.memory_mb)), output=output,
                duration_s=_elapsed(started)).to_dict()
        if doc is None:
            tail = container.logs(tail=40)[-LOG_TAIL_BYTES:].decode("utf-8", "replace")
            log.warning("job %s: %s (exit %s)\n%s", container.name, problem, state.get("ExitCode"), tail)
            return self.internal(job, f"{problem}; exit code {state.get('ExitCode')}", started)
        if doc.get("exercise") != job.exercise.id:
            return self.internal(job, "results document names another exercise", started)
        return doc


@dataclass(frozen=True)
class Running:
    """A Run's documents (no tests): a run document, whatever happened (base.validate_run_document)."""

    mode: str = "run"

    def internal(self, job: Job, detail: str, started: float) -> dict[str, Any]:
        log.warning("internal run error for %s: %s", job.exercise.id, detail)
        return internal_run(run_error("internal", job.lang, detail=detail), duration_s=_elapsed(started))

    def stopped(self, job: Job, started: float) -> dict[str, Any]:
        elapsed = _elapsed(started)
        return internal_run(run_error("stopped", job.lang, seconds=f"{elapsed:.1f}"), kind="stopped",
                            duration_s=elapsed)

    def decide(self, job: Job, container: Any, timed_out: bool, started: float) -> dict[str, Any]:
        """The run document, decided like a grading's."""
        limits = job.exercise.config.limits
        if timed_out:
            return internal_run(run_error("timeout", job.lang, limit=f"{limits.time_s:g}"),
                                kind="timeout", duration_s=_elapsed(started))
        try:
            return read_results(container, RESULTS_PATH, validate=validate_run_document)
        except ResultsUnreadable as exc:
            state = container.attrs.get("State", {})
            if state.get("OOMKilled"):
                return internal_run(run_error("memory", job.lang, limit=str(limits.memory_mb)),
                                    kind="memory", duration_s=_elapsed(started))
            detail = f"{exc}; exit code {state.get('ExitCode')}"
            return internal_run(run_error("internal", job.lang, detail=detail), duration_s=_elapsed(started))


GRADING = Grading()
RUNNING = Running()
