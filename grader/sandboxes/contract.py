"""The sandbox job contract shared by every backend: the warm entry, its ready line, the job order."""

from __future__ import annotations

# A warm sandbox (local, or inside a docker container) runs WARM_ENTRY: it imports everything,
# forks the learner runner as the job's own uid, says READY, then waits for ONE job order,
# grades or runs it, writes the document to the order's "results" path and exits.
WARM_ENTRY = "grader.sandboxes.warm_entry"
READY = "ready"  # the warm entry's one line on stdout once it may be given a job
MODES = ("grade", "run")  # grade: the tests, a results document; run: the top level, a run document
JOB_BYTES = 64 * 1024  # the most of an order the entry reads
MAX_RESULTS_BYTES = 1024 * 1024  # the most of a results document any backend reads back


def job_order(*, exercise: str, submission: str, results: str, lang: str, mode: str) -> dict[str, str]:
    """The one job a warm entry is given: where its exercise, submission and results are."""
    if mode not in MODES:
        raise ValueError(f"unknown job mode {mode!r}")
    return {"exercise": exercise, "submission": submission, "results": results, "lang": lang,
            "mode": mode}
