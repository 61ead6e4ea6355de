"""The grader's facade: everything the web app uses, and it imports the grader only through here.

Re-exports of the modules below it (grader.grading, grader.validate, grader.quiz,
grader.titles, the data modules). pyproject's import-linter contracts keep it so: no module of
the grader imports it (the facade is the grader's top layer but for the CLI), and the app
imports no other module of the grader.
"""

from __future__ import annotations

from grader.authoring import static_problems as authoring_problems
from grader.capacity import default_workers
from grader.figures import validate_figure
from grader.fingerprint import folder_fingerprint
from grader.grading import (
    checked_run_document,
    claim_worker_identity,
    grade_code,
    internal_error,
    remove_orphan_sandboxes,
    run_code,
    run_failed,
    run_stopped,
    sandbox_isolated,
    warm_up,
)
from grader.kinds import KINDS, LESSONS, Kind
from grader.ladder import rungs as hint_rungs
from grader.leaks import declared_slugs
from grader.loader import CONFIG_FILE, Exercise, ExerciseLoadError, ExerciseSet, load_exercises
from grader.quiz import (
    QuizAnswerError,
    grade_quiz,
    key_answers,
    load_quiz,
    public_questions,
    shuffled_questions,
    wrong_tries,
)
from grader.results import error_result
from grader.titles import check_titles
from grader.validate import FolderReport
from grader.validate import check_exercise as _check_exercise

__all__ = [
    "CONFIG_FILE", "KINDS", "LESSONS", "Exercise", "ExerciseLoadError", "ExerciseSet", "FolderReport", "Kind",
    "QuizAnswerError", "authoring_problems", "check_exercise", "check_titles", "checked_run_document",
    "claim_worker_identity", "declared_slugs", "folder_fingerprint",
    "default_workers", "error_result", "grade_code", "grade_quiz", "hint_rungs", "internal_error", "key_answers",
    "load_exercises", "load_quiz", "public_questions", "remove_orphan_sandboxes", "run_code", "run_failed",
    "run_stopped", "sandbox_isolated", "shuffled_questions", "validate_figure", "warm_up", "wrong_tries",
]


def check_exercise(exercise: Exercise, sandbox: str | None = None, *, background: bool = True) -> FolderReport:
    """The instructor check of one folder (folder, ok, problems).

    In the background lane by default: the web app calls this while learners are grading.
    """
    return _check_exercise(exercise, sandbox, background=background)
