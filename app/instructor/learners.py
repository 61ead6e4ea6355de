"""Every learner's progress for instructors, a page of accounts at a time; anonymous learners counted."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from app.extensions import db
from app.models import User
from app.progress.aggregates import counted_attempts, progress_table
from app.progress.records import sort_key
from app.progress.status import ExerciseProgress

# Accounts per page of the learners page (and per batch of the CSV export): what one page
# loads is at most this many accounts x the course's exercises, one aggregated row each.
LEARNERS_PAGE = 50


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


# Learners only: an instructor's own tries are no learner's progress (issue 34, item 7).
LEARNER_ACCOUNTS = User.role != "instructor"


def accounts() -> int:
    return int(db.session.scalar(select(func.count()).select_from(User).where(LEARNER_ACCOUNTS)) or 0)


def learner_rows(page: int = 1, size: int = LEARNERS_PAGE) -> list[LearnerRow]:
    """One row per account on this page (sorted by email), with its progress per exercise."""
    users = list(db.session.scalars(select(User).where(LEARNER_ACCOUNTS).order_by(User.email, User.id)
                                    .limit(size).offset((max(1, page) - 1) * size)))
    table = progress_table(user.learner_key for user in users)
    return [LearnerRow(user, table[user.learner_key]) for user in users]


def every_learner_row(batch: int = LEARNERS_PAGE) -> Iterator[LearnerRow]:
    """Every account's row, fetched a batch at a time (the CSV export streams them)."""
    page = 1
    while rows := learner_rows(page, batch):
        yield from rows
        page += 1


def anonymous_learners() -> int:
    """How many learners without an account did any counted work (counted in the database)."""
    every = counted_attempts()
    known = select(User.learner_key).scalar_subquery()
    return int(db.session.scalar(select(func.count(func.distinct(every.c.learner)))
                                 .where(every.c.learner.not_in(known))) or 0)
