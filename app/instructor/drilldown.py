"""One exercise in detail for instructors: failing checks and how often, examples, hint use, attempts."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select

from app.extensions import db
from app.instructor.stats import ExerciseStats, FailingCheck, exercise_stats, failing_checks_of
from app.models import HintReveal, Submission, User
from app.stored_json import text_at

EXAMPLES = 5  # failing submissions shown: enough to see a pattern, bounded whatever the history


@dataclass(frozen=True)
class Example:
    """A recent failing submission: a link, its score and the checks it failed."""

    id: str
    created_at: Any
    score: float | None
    failed: list[str]
    email: str | None = None  # whose it is (issue 34: the drill-down named no learner); None: no account


@dataclass
class Drilldown:
    """Everything the drill-down page shows, each part from one bounded query."""

    stats: ExerciseStats
    failing: list[FailingCheck]
    examples: list[Example]
    hint_use: dict[str, Counter[int]] = field(default_factory=dict)  # check -> rung -> learners

    @property
    def distribution(self) -> list[tuple[int, int]]:
        """(attempts until the first pass, learners), every count from 1 to the largest seen."""
        histogram = self.stats.attempts_to_pass
        return [(n, histogram.get(n, 0)) for n in range(1, max(histogram, default=0) + 1)]

    @property
    def not_passed(self) -> int:
        return self.stats.learners - self.stats.passed


def _failed_checks(result: dict[str, Any] | None) -> list[str]:
    tests = (result or {}).get("tests")
    if not isinstance(tests, list):
        return []
    return [str(t.get("check")) for t in tests
            if isinstance(t, dict) and t.get("status") in ("fail", "error") and t.get("check")]


def recent_failures(exercise_id: str, limit: int = EXAMPLES) -> list[Example]:
    """The latest graded submissions that did not pass (internal errors are not the learner's)."""
    status = text_at(Submission.result, "status")
    kind = text_at(Submission.result, "error_kind")
    rows = db.session.execute(
        select(Submission.id, Submission.created_at, Submission.result, User.email)
        .outerjoin(User, User.learner_key == Submission.learner)
        .where(Submission.exercise_id == exercise_id, Submission.status == "done",
               Submission.learner.is_not(None), status.in_(("fail", "error")),
               func.coalesce(kind, "") != "internal")
        .order_by(Submission.created_at.desc()).limit(limit))
    examples = []
    for sub_id, created_at, result, email in rows:
        score = (result or {}).get("score")
        examples.append(Example(sub_id, created_at, score if isinstance(score, int | float) else None,
                                _failed_checks(result), email))
    return examples


def hint_use_by_check(exercise_id: str) -> dict[str, Counter[int]]:
    """check -> rung -> learners who revealed it, for one exercise."""
    found: dict[str, Counter[int]] = {}
    for check, rung, learners in db.session.execute(
            select(HintReveal.check_id, HintReveal.rung, func.count(func.distinct(HintReveal.learner)))
            .where(HintReveal.exercise_id == exercise_id)
            .group_by(HintReveal.check_id, HintReveal.rung)):
        found.setdefault(check, Counter())[int(rung)] = int(learners)
    return found


def drilldown(exercise_id: str, accepts_code: bool) -> Drilldown:
    """The page's data; a quiz has no code to show, so no example submissions."""
    return Drilldown(stats=exercise_stats([exercise_id])[exercise_id],
                     failing=failing_checks_of(exercise_id),
                     examples=recent_failures(exercise_id) if accepts_code else [],
                     hint_use=hint_use_by_check(exercise_id))
