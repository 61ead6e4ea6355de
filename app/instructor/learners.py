"""Every learner's progress for instructors: accounts by email, anonymous browsers counted."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from app.accounts.models import User
from app.extensions import db
from app.progress.records import attempts, sort_key
from app.progress.status import ExerciseProgress, by_learner


@dataclass
class LearnerRow:
    user: User
    progress: dict[str, ExerciseProgress]

    @property
    def solved(self) -> int:
        return sum(1 for item in self.progress.values() if item.solved)

    @property
    def attempted(self) -> int:
        return sum(1 for item in self.progress.values() if item.attempts)

    @property
    def last_at(self) -> datetime | None:
        moments = [item.last_at for item in self.progress.values() if item.last_at]
        return max(moments, key=sort_key) if moments else None


def learner_rows() -> tuple[list[LearnerRow], int]:
    """One row per account (sorted by email), and how many anonymous learners did any work."""
    table = by_learner(attempts(checks=False))
    users = list(db.session.scalars(select(User).order_by(User.email)))
    known = {user.learner_key for user in users}
    anonymous = sum(1 for key in table if key not in known)
    return [LearnerRow(user, table.get(user.learner_key, {})) for user in users], anonymous
