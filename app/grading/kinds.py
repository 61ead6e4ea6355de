"""The kinds of background job and what each becomes when its worker is lost (app.grading.jobs runs them all).

Submissions ride the grading lane (the cpu/gpu queues); Runs have their own lane; folder checks
and regrades (app.grading.regrade) the background lane, checks first, on workers of its own.
"""

from __future__ import annotations

from typing import Any

from app.grading.jobs import JobKind
from app.models import ExerciseValidation, Regrade, Run, Submission
from grader.api import error_result, run_failed

# Shown when a job's grading was lost GRADING_MAX_ATTEMPTS times: almost always the code itself
# (memory, a crash in a native library) takes the grading process down with it.
STOPPED_MESSAGES = {
    "en": "Your code stopped the grader {count} times, so it was not graded. It may use too much "
          "memory or crash Python itself (for example through a native library). "
          "Change it, then submit again.",
    "ja": "あなたのコードが採点プログラムを {count} 回停止させたため、採点できませんでした。"
          "メモリを使いすぎているか、(ネイティブライブラリなどを通じて) Python 自体を"
          "異常終了させている可能性があります。コードを直してから、もう一度提出してください。",
}


def stopped_result(exercise_id: str, lang: str, count: int) -> dict[str, Any]:
    text = STOPPED_MESSAGES.get(lang, STOPPED_MESSAGES["en"]).format(count=count)
    return error_result(exercise_id, "runtime", text).to_dict()


SUBMISSIONS = JobKind(
    "submission", Submission, lane="grading", retried=True,
    ended=lambda row: {"result": stopped_result(row.exercise_id, row.lang, row.attempts)})
# A Run is not run again: the learner presses Run once more, and an endless one never runs twice.
RUNS = JobKind(
    "run", Run, lane="runs", retried=False,
    ended=lambda row: {"result": run_failed(row.lang, "the server running it stopped"), "claimed_by": None})
CHECKS = JobKind(
    "check", ExerciseValidation, lane="background", retried=True,
    status_name="state", finished_name="checked_at", created_name="requested_at",
    ended=lambda row: {"ok": False, "broken": False,
                       "problems": [f"could not be checked: its worker stopped {row.attempts} times"]})

# A regrade lost GRADING_MAX_ATTEMPTS times ends without a new result: the submission keeps its own.
REGRADES = JobKind(
    "regrade", Regrade, lane="background", retried=True,
    ended=lambda row: {"new_result": None, "changed": [],
                       "note": f"not regraded: its worker stopped {row.attempts} times"})

KINDS = {kind.name: kind for kind in (SUBMISSIONS, RUNS, CHECKS, REGRADES)}
