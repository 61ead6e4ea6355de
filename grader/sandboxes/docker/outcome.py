"""What a per-job container left: its results file and its OOM flag, as the shared Outcome."""

from __future__ import annotations

import logging
from typing import Any

from grader.sandboxes.docker.contract import RESULTS_PATH, ResultsUnreadable, read_results
from grader.sandboxes.outcome import Outcome

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
