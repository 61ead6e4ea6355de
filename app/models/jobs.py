"""The jobs' models: a learner's submission and its result, a Run of their code, a folder's check."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Index, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column, validates

from app.extensions import db
from app.models.base import JobColumns, UTCDateTime, code_size, new_id, utcnow
from app.stored_json import finite_on_load

# "held": stored but not yet admitted (the caps are counted after storing); no worker claims it.
STATUSES = ("held", "queued", "running", "done")


class Submission(JobColumns, db.Model):  # type: ignore[name-defined,misc]
    """Code sent for one exercise, and what the grader said about it."""

    __tablename__ = "submissions"
    __table_args__ = (
        Index("ix_submissions_learner_exercise", "learner", "exercise_id", "created_at"),
        # Covers the storage quota's sum (app.progress.quota): it never reads a row's code.
        Index("ix_submissions_learner_bytes", "learner", "code_bytes"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    exercise_id: Mapped[str] = mapped_column(String(64), index=True)
    # Whose work this is: an account's or an anonymous browser's key (app.accounts.identity).
    # Null only for rows stored before accounts existed; no one can read those.
    learner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    code: Mapped[str] = mapped_column(Text)
    # UTF-8 bytes of `code`, kept with it (code_size): the quota sums these, not the code.
    code_bytes: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    lang: Mapped[str] = mapped_column(String(8), default="en")
    status: Mapped[str] = mapped_column(String(16), index=True, default="queued")
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # What a running job waits for, set by its worker: "starting" while a sandbox is started
    # for it (no warm one was free; grader.api.grade_code's on_phase); None otherwise.
    phase: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # Anonymous sessions only: a keyed hash of the client address, for the per-address cap.
    anon_address: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    # Every job: the same keyed hash of the address it came from, logged in or not. The
    # anonymous work of an address shares its running cap with the accounts working from
    # there (app.grading.running_cap): one person, one share.
    from_address: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)

    @validates("code")
    def _measure_code(self, _key: str, code: str) -> str:
        self.code_bytes = code_size(code)
        return code

    def to_api(self, queue_position: int | None = None) -> dict[str, Any]:
        """The public view of a submission; its place in the queue comes from the scheduler.

        (app.grading.position.submission_api computes it: the model knows no scheduler.)
        """
        return {
            "id": self.id,
            "exercise": self.exercise_id,
            "status": self.status,
            "result": self.result if self.status == "done" else None,
            "queue_position": queue_position if self.status == "queued" else None,
            "waited_s": self.waited_s(),
            "elapsed_s": self.elapsed_s(),
            "phase": self.phase if self.status == "running" else None,
            # With its zone: the browser shows it in the learner's own time (app/static/src/times.js).
            "created_at": self.created_at.isoformat() if self.created_at else None,
        }

    def waited_s(self) -> float | None:
        """Seconds since the submission was stored, while it waits in the queue; None otherwise."""
        return _elapsed(self.created_at) if self.status == "queued" else None

    def elapsed_s(self) -> float | None:
        """Seconds since grading started, while it runs; None otherwise."""
        if self.status != "running" or self.started_at is None:
            return None
        return _elapsed(self.started_at)


class Run(JobColumns, db.Model):  # type: ignore[name-defined,misc]
    """Code a learner ran without grading (the Run button): a short-lived job, not a submission.

    Kept only until the learner's next Run (or RUN_KEEP_S): nothing of it is graded or shown
    in the history. Columns mirror Submission's so admission and the fair order treat both alike.
    """

    __tablename__ = "runs"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    exercise_id: Mapped[str] = mapped_column(String(64))
    learner: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    code: Mapped[str] = mapped_column(Text)
    lang: Mapped[str] = mapped_column(String(8), default="en")
    status: Mapped[str] = mapped_column(String(16), index=True, default="queued")
    # The run document (grader.sandboxes.base.validate_run_document), once done.
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    anon_address: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    from_address: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)

    def to_api(self) -> dict[str, Any]:
        """The public view of a Run, as the JSON API sends it."""
        result = self.result if self.status == "done" else None
        return {
            "id": self.id,
            "exercise": self.exercise_id,
            "status": self.status,
            "result": result,
            "elapsed_s": _elapsed(self.started_at) if self.status == "running" else None,
        }


def _elapsed(started: datetime | None) -> float | None:
    if started is None:
        return None
    return round(max(0.0, (utcnow() - started).total_seconds()), 1)


class ExerciseValidation(JobColumns, db.Model):  # type: ignore[name-defined,misc]
    """One folder's check through the real grader (solution passes, starter fails): a background job.

    Its state is the job's status (queued | running | done); a worker claims and beats it like a
    grading (app.grading.jobs), so a check lost with its worker is taken over, not left running.
    """

    __tablename__ = "exercise_validations"

    exercise_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    state: Mapped[str] = mapped_column(String(16), default="queued")  # queued | running | done
    ok: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    problems: Mapped[list[str]] = mapped_column(JSON, default=list)
    requested_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    checked_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # The folder's fingerprint (grader.fingerprint) the verdict is about: another one now means stale.
    fingerprint: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # Its tests cannot be graded at all (an authoring error): learners do not get the exercise.
    broken: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class SpentToken(db.Model):  # type: ignore[name-defined,misc]
    """A queue token (a Celery delivery's id) that claimed a job: it will never claim another.

    The sweep counts delivered tokens as "on their way" unless they are here, so a delivery whose
    worker died, or whose job was given back and taken by another token, is never counted as
    one that will still grade (docs/scaling.md, "Token accounting").
    """

    __tablename__ = "spent_tokens"

    token: Mapped[str] = mapped_column(String(64), primary_key=True)
    spent_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


# Results are read as data, never trusted to be finite (app.stored_json).
finite_on_load(Submission)
finite_on_load(Run)
