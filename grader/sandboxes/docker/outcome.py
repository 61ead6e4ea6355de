"""What a per-job container left (its results file, its OOM flag) as the shared Outcome; engine faults as documents."""

from __future__ import annotations

import logging
from typing import Any

from grader.sandboxes.base import Job
from grader.sandboxes.docker.contract import RESULTS_PATH, ResultsUnreadable, read_results
from grader.sandboxes.docker.image import image_name
from grader.sandboxes.outcome import Documents, Outcome

log = logging.getLogger(__name__)
LOG_TAIL_BYTES = 4096


def _unchecked(raw: Any) -> Any:
    return raw  # the shared documents (grader.sandboxes.outcome) check it for the job's mode


def container_outcome(container: Any, *, timed_out: bool) -> Outcome:
    """Read back what the harness wrote (never stdout, never an exit code as a verdict)."""
    state = container.attrs.get("State", {})
    if timed_out:
        return Outcome(timed_out=True)
    try:
        document = read_results(container, RESULTS_PATH, validate=_unchecked)
    except ResultsUnreadable as exc:
        tail = container.logs(tail=40)[-LOG_TAIL_BYTES:].decode("utf-8", "replace")
        log.warning("job %s: %s (exit %s)\n%s", container.name, exc, state.get("ExitCode"), tail)
        return Outcome(problem=str(exc), oom=bool(state.get("OOMKilled")), exit_code=state.get("ExitCode"))
    return Outcome(document=document, oom=bool(state.get("OOMKilled")), exit_code=state.get("ExitCode"))


def engine_fault(documents: Documents, job: Job, exc: Exception, started: float) -> dict[str, Any] | None:
    """The internal document for an engine error (a missing image, a GPU it cannot attach, a broken
    connection), or None when `exc` is not the engine's."""
    import docker.errors
    import requests.exceptions

    if isinstance(exc, docker.errors.ImageNotFound):
        return documents.internal(job, f"sandbox image {image_name()} is missing (run `make sandbox-image`)", started)
    if isinstance(exc, docker.errors.APIError):
        if "could not select device driver" in str(exc):
            return documents.internal(job, "the GPU could not be attached to the sandbox "
                                           "(NVIDIA Container Toolkit missing?)", started)
        return documents.internal(job, f"docker: {exc.explanation or exc}", started)
    if isinstance(exc, (docker.errors.DockerException, requests.exceptions.RequestException)):
        return documents.internal(job, f"docker: {exc}", started)
    return None
