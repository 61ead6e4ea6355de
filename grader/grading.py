"""Grade or run learner code in a sandbox: platform faults come back as documents, never raised."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from grader.loader import Exercise
from grader.messages import run_error
from grader.results import error_result
from grader.sandboxes import Job, get_sandbox
from grader.sandboxes.base import internal_run, validate_run_document
from grader.sandboxes.owner import claim_identity_for_children


def grade_code(exercise: Exercise, code: str, *, lang: str = "en",
               sandbox: str | None = None, background: bool = False,
               on_phase: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Grade `code` against `exercise`; platform faults come back as internal errors, not raised.

    `background`: work no learner waits for (an instructor's check): one such grading at a
    time, at the lowest CPU priority, never in a learner's warm sandbox (grader.sandboxes.lane).
    `on_phase`: called with "starting" (perhaps from another thread) when no warm sandbox was
    free and one is being started for this job, so the learner can be told why it takes longer.
    """
    try:
        backend = get_sandbox(sandbox)
        return backend.run(Job(exercise=exercise, code=code, lang=lang, background=background,
                               on_phase=on_phase))
    except Exception as exc:  # noqa: BLE001 -- the caller stores a verdict whatever happens
        detail = f"{type(exc).__name__}: {exc}"
        return error_result(exercise.id, "internal",
                            run_error("internal", lang, detail=detail)).to_dict()


def run_code(exercise: Exercise, code: str, *, lang: str = "en", sandbox: str | None = None,
             cancel: threading.Event | None = None) -> dict[str, Any]:
    """Run `code`'s top level in the exercise's sandbox and limits, without tests or a grade.

    Returns {status: "ok"|"error", output (capped like grading's), error: {kind, message,
    line, traceback} or None, duration_s}; kinds are the whole-run error kinds of grading
    ("stopped" when `cancel` was set: the sandbox is killed within a fraction of a second).
    """
    try:
        backend = get_sandbox(sandbox)
        return backend.execute(Job(exercise=exercise, code=code, lang=lang, cancel=cancel))
    except Exception as exc:  # noqa: BLE001 -- same promise as grade_code
        return internal_run(run_error("internal", lang, detail=f"{type(exc).__name__}: {exc}"))


def run_stopped(lang: str, seconds: float) -> dict[str, Any]:
    """The run document of a Run the learner stopped after `seconds`."""
    return internal_run(run_error("stopped", lang, seconds=f"{seconds:.1f}"), kind="stopped",
                        duration_s=round(seconds, 3))


def run_failed(lang: str, detail: str = "") -> dict[str, Any]:
    """The run document of a Run that failed on the platform's side (not the learner's fault)."""
    return internal_run(run_error("internal", lang, detail=detail))


def checked_run_document(doc: Any) -> dict[str, Any]:
    """A run document as run_code returns it, checked; ValueError when it is not one."""
    return validate_run_document(doc)


def warm_up(sandbox: str | None = None, *, wait_s: float = 0.0) -> bool:
    """Start this process's warm sandboxes now (e.g. in a worker's process-init hook).

    Without it they start with the first job, which then waits for one. Returns whether they
    were all ready within `wait_s` seconds (0: do not wait).
    """
    return get_sandbox(sandbox).warm_up(wait_s)


def sandbox_isolated(sandbox: str | None = None) -> bool:
    """Whether the sandbox `sandbox` resolves to isolates learner code (False when unknown)."""
    try:
        return get_sandbox(sandbox).isolated
    except ValueError:
        return False


def claim_worker_identity() -> str:
    """In a grading worker's main process, before its pool forks: sandboxes carry its identity."""
    return claim_identity_for_children()


def remove_orphan_sandboxes(sandbox: str | None = None, *, this_worker: bool = False) -> int:
    """Remove the sandboxes of grading workers that are gone; returns how many.

    `this_worker`: every sandbox of this worker instead (its own shutdown). Each backend
    touches only what it made (docker: this project's labelled containers).
    """
    return get_sandbox(sandbox).remove_orphans(this_worker=this_worker)


def internal_error(exercise_id: str, lang: str, detail: str = "") -> dict[str, Any]:
    """A results document for a platform fault (the learner is not blamed), as a dict."""
    return error_result(exercise_id, "internal", run_error("internal", lang, detail=detail)).to_dict()
