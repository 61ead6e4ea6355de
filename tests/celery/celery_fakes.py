"""A stand-in grade function for the Celery load tests: fast, logs each call, sleeps on request.

Loaded by the worker processes through GRADING_TEST_GRADE_FUNCTION=tests.celery.celery_fakes:grade.
Code containing `# sleep S` sleeps S seconds on its first grading only (a re-grade after a
worker was killed is quick); `# poison` kills the grading process every time, as code that takes
its grader down with it would; every call appends "start|done <marker> <worker> <pid> <time>" to GRADING_TEST_LOG.
"""

from __future__ import annotations

import os
import re
import signal
import time
from typing import Any

from grader.results import TestResult, summarize


def _log(event: str, marker: str) -> None:
    line = f"{event} {marker} {os.environ.get('WORKER_NAME', '?')} {os.getpid()} {time.time():.3f}\n"
    fd = os.open(os.environ["GRADING_TEST_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode())  # one write with O_APPEND: lines from processes never mix
    finally:
        os.close(fd)


def grade(exercise: Any, code: str, *, lang: str = "en", sandbox: str = "auto") -> dict[str, Any]:
    found = re.search(r"# id (\S+)", code)
    marker = found.group(1) if found else "-"
    seen = os.path.join(os.path.dirname(os.environ["GRADING_TEST_LOG"]), f"seen-{marker}")
    first = not os.path.exists(seen)
    open(seen, "a").close()
    _log("start", marker)
    if "# poison" in code:
        os.kill(os.getpid(), signal.SIGKILL)
    sleep = re.search(r"# sleep ([0-9.]+)", code)
    if sleep and first:
        time.sleep(float(sleep.group(1)))
    ok = "return a + b" in code
    test = TestResult(name="test_add", check="returns-sum", title="Returns the sum",
                      status="pass" if ok else "fail", message="" if ok else "add() does not return a + b.",
                      hint="", line=None, points=int(ok), max_points=1)
    _log("done", marker)
    return summarize(exercise.id, [test], output=f"graded by {os.environ.get('WORKER_NAME')}").to_dict()


def check(exercise: Any, sandbox: str | None = None) -> Any:
    """A stand-in folder check (GRADING_TEST_CHECK_FUNCTION): logs as "check-<id>", takes
    GRADING_TEST_CHECK_SLEEP_S (30 s unless set) on its first run only."""
    from grader.validate import FolderReport

    marker = f"check-{exercise.id}"
    seen = os.path.join(os.path.dirname(os.environ["GRADING_TEST_LOG"]), f"seen-{marker}")
    first = not os.path.exists(seen)
    open(seen, "a").close()
    _log("start", marker)
    if first:
        time.sleep(float(os.environ.get("GRADING_TEST_CHECK_SLEEP_S") or 30))
    _log("done", marker)
    return FolderReport(exercise.id, True, [])
