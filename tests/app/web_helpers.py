"""Helpers for the web app's tests: a stand-in grading function and a poller like the editor's."""

from __future__ import annotations

import time
from typing import Any

from flask.testing import FlaskClient

from grader.loader import Exercise
from grader.results import TestResult, summarize


def keyword_grader(
    exercise: Exercise, code: str, *, lang: str = "en", sandbox: str = "auto"
) -> dict[str, Any]:
    """A stand-in for grader.api.grade_code in queue tests: passes code that returns a + b."""
    ok = "return a + b" in code
    wrong = "add() は a + b を返していません。" if lang == "ja" else "add() does not return a + b."
    message = "" if ok else wrong
    test = TestResult(
        name="test_add", check="returns-sum", title="Returns the sum",
        status="pass" if ok else "fail",
        message=message, hint="" if ok else "Use +.", line=None if ok else 2,
        points=1 if ok else 0, max_points=1,
    )
    return summarize(exercise.id, [test], output=f"graded with sandbox={sandbox}").to_dict()


def wait_for_done(client: FlaskClient, submission_id: str, timeout: float = 120.0) -> dict[str, Any]:
    """Poll the API like the editor does until the submission is graded.

    The timeout is a cap for a grader that never finishes, generous so a busy host cannot
    reach it; the poll returns as soon as the submission is done.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body: dict[str, Any] = client.get(f"/api/submissions/{submission_id}").get_json()
        if body["status"] == "done":
            return body
        time.sleep(0.05)
    raise AssertionError(f"submission {submission_id} not graded within {timeout}s")
