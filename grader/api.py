"""The one function the web app calls: grade code for an exercise, get a results document."""

from __future__ import annotations

from typing import Any

from grader.loader import Exercise
from grader.messages import run_error
from grader.results import error_result
from grader.sandboxes import Job, get_sandbox


def grade_code(exercise: Exercise, code: str, *, lang: str = "en",
               sandbox: str | None = None) -> dict[str, Any]:
    """Grade `code` against `exercise`; platform faults come back as internal errors, not raised."""
    try:
        backend = get_sandbox(sandbox)
        return backend.run(Job(exercise=exercise, code=code, lang=lang))
    except Exception as exc:  # noqa: BLE001 -- the caller stores a verdict whatever happens
        detail = f"{type(exc).__name__}: {exc}"
        return error_result(exercise.id, "internal",
                            run_error("internal", lang, detail=detail)).to_dict()
