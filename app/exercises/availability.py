"""Whether learners may have an exercise: not while its tests cannot run (an authoring error).

Two sources, both tied to the folder's current contents: the catalog's cheap look at the tests
(grader.authoring, at start-up and whenever a file changes), and the last stored validation
when it was about these very contents (same fingerprint) and found the tests broken.
"""

from __future__ import annotations

from collections.abc import Iterable

from flask_babel import gettext as _
from sqlalchemy import select

from app.content import exercise_catalog
from app.extensions import db
from app.models import ExerciseValidation
from grader.api import Exercise


def unavailable_ids(exercises: Iterable[Exercise]) -> set[str]:
    """The ids among `exercises` that learners cannot have now (one query for the stored verdicts)."""
    catalog = exercise_catalog()
    ids = [exercise.id for exercise in exercises if exercise.kind.accepts_code]
    if not ids:
        return set()
    broken = {row.exercise_id: row.fingerprint for row in db.session.scalars(
        select(ExerciseValidation).where(ExerciseValidation.exercise_id.in_(ids), ExerciseValidation.broken))}
    return {exercise_id for exercise_id in ids
            if catalog.authoring_problems(exercise_id)
            or (exercise_id in broken and broken[exercise_id] == catalog.fingerprint(exercise_id))}


def is_unavailable(exercise: Exercise) -> bool:
    return exercise.id in unavailable_ids([exercise])


def unavailable_message() -> str:
    """What a learner reads instead of the exercise (the current request's language)."""
    return _("This exercise is unavailable for now: its checks are being repaired. "
             "Nothing you saved is lost; try the other exercises meanwhile.")
