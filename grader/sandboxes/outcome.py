"""The document a sandbox's job ends with, decided from what the sandbox saw: one for every backend."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from grader.messages import run_error
from grader.results import error_result, validate_document
from grader.sandboxes.base import Job, internal_run, validate_run_document

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    """What one job left, as the backend saw it: the harness's document (unchecked) or why there is none."""

    document: Any = None
    problem: str = ""  # why there is no document
    timed_out: bool = False  # the backend's wall clock ended it (our own flag: an exit code is ambiguous)
    stopped: bool = False  # the job's cancel event ended it
    oom: bool = False  # the memory cgroup's OOM killer struck during the job
    exit_code: int | None = None
    log_tail: str = ""  # the harness's last words, for an internal error's detail


def _elapsed(started: float) -> float:
    return round(time.monotonic() - started, 3)


@dataclass(frozen=True)
class Documents:
    """The documents of one job mode: a grading's (results) or a Run's (run document)."""

    mode: str
    validate: Callable[[Any], dict[str, Any]]
    # An OOM kill the harness did not report overrides its document (a grading), or counts only
    # when the harness left none (a Run: its output is the learner's to see either way).
    oom_overrides: bool

    def internal(self, job: Job, detail: str, started: float) -> dict[str, Any]:
        log.warning("internal %s error for %s: %s", self.mode, job.exercise.id, detail)
        message = run_error("internal", job.lang, detail=detail)
        if self.mode == "run":
            return internal_run(message, duration_s=_elapsed(started))
        return error_result(job.exercise.id, "internal", message, duration_s=_elapsed(started)).to_dict()

    def stopped(self, job: Job, started: float) -> dict[str, Any]:
        message = run_error("stopped", job.lang, seconds=f"{_elapsed(started):.1f}")
        if self.mode == "run":
            return internal_run(message, kind="stopped", duration_s=_elapsed(started))
        return error_result(job.exercise.id, "internal", message, duration_s=_elapsed(started)).to_dict()

    def _limit(self, job: Job, kind: str, started: float, output: str = "") -> dict[str, Any]:
        limits = job.exercise.config.limits
        values = {"limit": f"{limits.time_s:g}"} if kind == "timeout" else {"limit": str(limits.memory_mb)}
        message = run_error(kind, job.lang, **values)
        if self.mode == "run":
            return internal_run(message, kind=kind, duration_s=_elapsed(started))
        return error_result(job.exercise.id, kind, message, output=output,
                            duration_s=_elapsed(started)).to_dict()

    def _reports_memory(self, doc: dict[str, Any]) -> bool:
        if self.mode == "run":
            return (doc.get("error") or {}).get("kind") == "memory"
        return doc.get("error_kind") == "memory"

    def decide(self, job: Job, outcome: Outcome, started: float) -> dict[str, Any]:
        """The job's document from what the backend saw, never from exit codes or stdout."""
        if outcome.stopped:
            return self.stopped(job, started)
        if outcome.timed_out:
            return self._limit(job, "timeout", started)
        doc: dict[str, Any] | None = None
        problem = outcome.problem
        if outcome.document is not None:
            try:
                doc = self.validate(outcome.document)
            except ValueError as exc:
                problem = f"results file is not a valid document: {exc}"
        if outcome.oom and (doc is None or (self.oom_overrides and not self._reports_memory(doc))):
            # The cgroup's OOM killer struck (perhaps a child the harness never saw die):
            # whatever the harness concluded, the run did not get the memory it needed.
            return self._limit(job, "memory", started, output=(doc or {}).get("output", ""))
        if doc is None:
            detail = f"no results from the sandbox (exit code {outcome.exit_code}): {problem}"
            return self.internal(job, f"{detail}; {outcome.log_tail}" if outcome.log_tail else detail, started)
        if self.mode == "grade" and doc.get("exercise") != job.exercise.id:
            return self.internal(job, "results document names another exercise", started)
        return doc


GRADING = Documents("grade", validate_document, oom_overrides=True)
RUNNING = Documents("run", validate_run_document, oom_overrides=False)


def documents_for(mode: str) -> Documents:
    """The documents of a job mode ("grade" or "run")."""
    return RUNNING if mode == "run" else GRADING
