"""Per-exercise statistics: pass rate, attempts until a pass, the checks that fail most often."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from app.progress.records import Attempt
from app.progress.status import by_learner


@dataclass
class ExerciseStats:
    """What the learners who tried one exercise did with it."""

    exercise_id: str
    learners: int = 0
    passed: int = 0
    submissions: int = 0
    attempts_to_pass: list[int] = field(default_factory=list)
    failing_checks: Counter[str] = field(default_factory=Counter)  # slug -> learners hitting it

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.learners if self.learners else None

    @property
    def median_attempts_to_pass(self) -> float | None:
        return statistics.median(self.attempts_to_pass) if self.attempts_to_pass else None

    @property
    def mean_attempts_to_pass(self) -> float | None:
        return statistics.fmean(self.attempts_to_pass) if self.attempts_to_pass else None

    def to_api(self) -> dict[str, Any]:
        return {
            "exercise": self.exercise_id, "learners": self.learners, "passed": self.passed,
            "submissions": self.submissions, "pass_rate": self.pass_rate,
            "median_attempts_to_pass": self.median_attempts_to_pass,
            "mean_attempts_to_pass": self.mean_attempts_to_pass,
            "failing_checks": [{"check": slug, "learners": count}
                               for slug, count in self.failing_checks.most_common()],
        }


def exercise_stats(records: Iterable[Attempt], exercise_ids: Iterable[str]
                   ) -> dict[str, ExerciseStats]:
    """Statistics of every given exercise, from graded records in time order."""
    records = list(records)
    table = {ex_id: ExerciseStats(ex_id) for ex_id in exercise_ids}
    checks_hit: dict[tuple[str, str], set[str]] = {}
    for record in records:
        stats = table.get(record.exercise_id)
        if stats is None:
            continue  # an exercise that was removed from the course
        stats.submissions += 1
        # A learner counts once per check, however often they hit it.
        checks_hit.setdefault((record.exercise_id, record.learner), set()).update(
            record.failing_checks())
    for learner, progress in by_learner(records).items():
        for ex_id, item in progress.items():
            stats = table.get(ex_id)
            if stats is None:
                continue
            stats.learners += 1
            if item.solved and item.attempts_to_pass is not None:
                stats.passed += 1
                stats.attempts_to_pass.append(item.attempts_to_pass)
            stats.failing_checks.update(checks_hit.get((ex_id, learner), set()))
    return table
