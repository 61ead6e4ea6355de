"""The Run lane inside a sandbox backend: Runs' own slots and warm pool, apart from grading's."""

from __future__ import annotations

import os
import threading

from grader.sandboxes import resources

# Runs (the Run button, no grading) never take a grading's slot nor its warm sandbox: an
# endless Run holds only this lane's slot for its time limit, and a grading that comes
# meanwhile still finds its warm sandbox idle (issue 20).
DEFAULT_RUNS = 2
DEFAULT_POOL = 1


def max_runs() -> int:
    """Concurrent Runs per process (GRADER_MAX_RUNS), default 2."""
    try:
        return max(1, int(os.environ.get("GRADER_MAX_RUNS", "")))
    except ValueError:
        return DEFAULT_RUNS


def run_pool_size() -> int:
    """GRADER_RUN_POOL_SIZE: warm sandboxes kept for Runs per pool and process (0: Runs start cold)."""
    try:
        return max(0, int(os.environ.get("GRADER_RUN_POOL_SIZE", DEFAULT_POOL)))
    except ValueError:
        return DEFAULT_POOL


def slots() -> threading.BoundedSemaphore:
    """This process's Run slots (made on first use, so GRADER_MAX_RUNS is read then; a forked
    child, such as a Celery prefork worker, counts its own: grader.sandboxes.resources)."""
    return resources.shared("run slots", lambda: threading.BoundedSemaphore(max_runs()))
