"""What a regrade changed, for the instructor: changed verdicts first (learner, old -> new, checks), its progress."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from app.extensions import db
from app.grading.regrade import counts
from app.models import Regrade, RegradeRun, Submission, User

SHOWN = 300  # rows the page lists; the counts cover every row of the run


@dataclass(frozen=True)
class Row:
    """One regraded submission as the report lists it."""

    submission_id: str
    learner: str  # the account's email, or "anonymous"
    status: str  # the job's: queued | running | done
    old_verdict: str | None
    new_verdict: str | None
    old_score: float | None
    new_score: float | None
    changed: list[str]
    note: str | None
    finished_at: datetime | None

    @property
    def verdict_changed(self) -> bool:
        return self.new_verdict is not None and self.new_verdict != self.old_verdict

    @property
    def score_changed(self) -> bool:
        return self.new_verdict is not None and self.new_score != self.old_score

    def rank(self) -> tuple[int, str]:
        """Changed verdicts, then changed scores, then not regraded (a note), unchanged, still to do."""
        if self.verdict_changed:
            group = 0
        elif self.score_changed or self.changed:
            group = 1
        elif self.status == "done" and self.new_verdict is None:
            group = 2
        elif self.status == "done":
            group = 3
        else:
            group = 4
        return group, self.learner


@dataclass(frozen=True)
class Report:
    """A run, its progress and its rows in report order."""

    run: RegradeRun
    progress: dict[str, int]
    rows: list[Row]
    changed_verdicts: int

    @property
    def running(self) -> bool:
        return self.run.active is not None

    @property
    def done(self) -> int:
        return self.progress["done"]


def latest_run(exercise_id: str) -> RegradeRun | None:
    """The exercise's newest regrade run."""
    return db.session.scalar(select(RegradeRun).where(RegradeRun.exercise_id == exercise_id)
                             .order_by(RegradeRun.created_at.desc()).limit(1))


def report(run: RegradeRun) -> Report:
    """The run's rows, changed verdicts first: one query, verdicts and scores read by JSON path.

    Before a job ends it has no old result of its own: the submission's is still the old one.
    """
    found = db.session.execute(
        select(Regrade.submission_id, Regrade.status, Regrade.old_result["status"].as_string(),
               Regrade.new_result["status"].as_string(), Regrade.old_score, Regrade.new_score,
               Regrade.changed, Regrade.note, Regrade.finished_at,
               Submission.result["status"].as_string(), Submission.result["score"].as_float(), User.email)
        .join(Submission, Submission.id == Regrade.submission_id)
        .outerjoin(User, User.learner_key == Submission.learner)
        .where(Regrade.run_id == run.id)).all()
    rows = []
    for (sub_id, status, old_verdict, new_verdict, old_score, new_score, changed, note, finished_at,
         current_verdict, current_score, email) in found:
        done = status == "done"
        rows.append(Row(sub_id, email or "anonymous", status, old_verdict if done else current_verdict,
                        new_verdict, old_score if done else current_score, new_score,
                        list(changed or []), note, finished_at))
    rows.sort(key=Row.rank)
    return Report(run, counts(run.id), rows[:SHOWN], sum(1 for row in rows if row.verdict_changed))
