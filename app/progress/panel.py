"""The results panel, rendered once on the server for every page that shows feedback.

The history page, a submission's page and the editor (which fetches progress.submission_panel
and swaps it in) show the same panel: verdict, checks, hints, charts with their numbers, the
measurement table, advice and output. The browser adds only what must run there.
"""

from __future__ import annotations

from typing import Any

from flask import abort, render_template
from werkzeug.wrappers import Response

from app.accounts.identity import learner_key
from app.progress import bp
from app.progress.access import readable_submission
from app.progress.aggregates import learner_progress

# Checks skipped for one same reason read as one card naming them all, from this many on: a
# starter once made a phone page of a dozen identical cards.
GROUP_AT = 3
# The error kinds that stop a run in the middle of a check (grader.harness._fatal_result).
STOPS = ("timeout", "memory", "output-limit")


@bp.app_template_global("skip_groups")
def skip_groups(tests: list[dict[str, Any]], explain: Any, titles: dict[str, str]
                ) -> dict[int, list[dict[str, Any]] | None]:
    """index of a test -> the members of its group (on the group's first test), None on the
    others of a group; tests not grouped are absent. `explain` gives a skip's sentence."""
    by_reason: dict[str, list[int]] = {}
    for index, test in enumerate(tests):
        if test.get("status") == "skip":
            by_reason.setdefault(str(explain(test, titles)), []).append(index)
    found: dict[int, list[dict[str, Any]] | None] = {}
    for members in by_reason.values():
        if len(members) >= GROUP_AT:
            found[members[0]] = [tests[i] for i in members]
            found.update({i: None for i in members[1:]})
    return found


@bp.app_template_global("stopped_check")
def stopped_check(result: dict[str, Any]) -> int | None:
    """The index of the check the run's stop hit (a time-out, the memory or output limit): the
    grader gives the document that check's message. The panel says it once, in the error box,
    in the page's language (the check's own `texts`); the time-out text once appeared twice,
    and in the language it was graded in."""
    message = result.get("message")
    if result.get("error_kind") not in STOPS or not message:
        return None
    for index, test in enumerate(result.get("tests") or []):
        if isinstance(test, dict) and test.get("status") == "error" and test.get("message") == message:
            return index
    return None


@bp.app_template_global("failing_lines")
def failing_lines(result: dict[str, Any]) -> list[int]:
    """The learner's lines that the error or a failing check points at (the editor marks them)."""
    lines = [result["line"]] if isinstance(result.get("line"), int) else []
    for test in result.get("tests") or []:
        if test.get("status") in ("fail", "error") and isinstance(test.get("line"), int):
            lines.append(test["line"])
    return lines


@bp.get("/submissions/<submission_id>/panel")
def submission_panel(submission_id: str) -> Response:
    """A graded submission's panel as a fragment for the editor, with the learner's standing
    on the exercise as it is now (the header once kept "Best score 0%" beside 100%)."""
    found = readable_submission(submission_id)
    if found.status != "done" or not isinstance(found.result, dict):
        abort(404)
    own = found.learner == learner_key()
    standing = learner_progress(learner_key()).get(found.exercise_id) if own else None
    response = Response(render_template("progress/panel_fragment.html", result=found.result,
                                        submission_id=found.id, standing=standing), mimetype="text/html")
    response.headers["Cache-Control"] = "no-store"  # the standing changes with the next submission
    return response
