"""Per-exercise statistics aggregated in SQL: pass rate, attempts until a pass, failing checks."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select, text

from app.extensions import db
from app.progress.aggregates import per_learner_exercise


@dataclass
class ExerciseStats:
    """What the learners who tried one exercise did with it."""

    exercise_id: str
    learners: int = 0
    passed: int = 0
    submissions: int = 0
    # attempts until the first pass -> how many learners needed that many: a histogram, so the
    # page holds one number per distinct count, not one per learner or per attempt.
    attempts_to_pass: Counter[int] = field(default_factory=Counter)
    failing_checks: Counter[str] = field(default_factory=Counter)  # slug -> learners hitting it

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.learners if self.learners else None

    @property
    def median_attempts_to_pass(self) -> float | None:
        return _median(self.attempts_to_pass)

    @property
    def mean_attempts_to_pass(self) -> float | None:
        total = sum(self.attempts_to_pass.values())
        return sum(n * k for n, k in self.attempts_to_pass.items()) / total if total else None

    def to_api(self) -> dict[str, Any]:
        return {
            "exercise": self.exercise_id, "learners": self.learners, "passed": self.passed,
            "submissions": self.submissions, "pass_rate": self.pass_rate,
            "median_attempts_to_pass": self.median_attempts_to_pass,
            "mean_attempts_to_pass": self.mean_attempts_to_pass,
            "failing_checks": [{"check": slug, "learners": count}
                               for slug, count in self.failing_checks.most_common()],
        }


def _median(histogram: Counter[int]) -> float | None:
    """statistics.median of the values the histogram counts, without listing them."""
    total = sum(histogram.values())
    if not total:
        return None
    middle = [(total - 1) // 2, total // 2]  # the 0-based rank(s) of the middle value(s)
    found, seen = [], 0
    for value in sorted(histogram):
        seen += histogram[value]
        while middle and middle[0] < seen:
            found.append(value)
            middle.pop(0)
    # A whole median is an int ("6", like "2" beside it, never "6.0"); a half stays ("6.5").
    middle_value = statistics.fmean(found)
    return int(middle_value) if middle_value.is_integer() else middle_value


def exercise_stats(exercise_ids: Iterable[str]) -> dict[str, ExerciseStats]:
    """Statistics of every given exercise (a removed exercise's attempts are left out).

    Three grouped queries: the rows they return are bounded by exercises x distinct attempt
    counts and exercises x checks, whatever the number of stored results.
    """
    table = {ex_id: ExerciseStats(ex_id) for ex_id in exercise_ids}
    if not table:
        return table
    wanted = list(table)
    per = per_learner_exercise()
    for row in db.session.execute(
            select(per.c.exercise_id, func.count(), func.count(per.c.first_pass_at), func.sum(per.c.attempts))
            .where(per.c.exercise_id.in_(wanted)).group_by(per.c.exercise_id)):
        stats = table[row[0]]
        stats.learners, stats.passed, stats.submissions = int(row[1]), int(row[2]), int(row[3] or 0)
    for ex_id, to_pass, learners in db.session.execute(
            select(per.c.exercise_id, per.c.to_pass, func.count())
            .where(per.c.exercise_id.in_(wanted), per.c.to_pass.is_not(None))
            .group_by(per.c.exercise_id, per.c.to_pass)):
        table[ex_id].attempts_to_pass[int(to_pass)] = int(learners)
    for ex_id, check, learners in failing_checks():
        if ex_id in table:
            table[ex_id].failing_checks[check] = int(learners)
    return table


# One table's tests, one row each (exercise, learner, check, status), from counted results: the
# tests list inside each results document is expanded by the database, never sent over.
_EXPANDED = {
    "sqlite": """
        SELECT {table}.exercise_id AS exercise_id, {table}.learner AS learner,
               CASE WHEN t.type = 'object' THEN json_extract(t.value, '$.check') END AS chk,
               CASE WHEN t.type = 'object' THEN json_extract(t.value, '$.status') END AS st
        FROM {table}, json_each(CASE WHEN NOT json_valid({table}.result) THEN '{{"tests": []}}'
                                     WHEN json_type({table}.result, '$.tests') = 'array'
                                     THEN {table}.result ELSE '{{"tests": []}}' END, '$.tests') AS t
        WHERE {table}.learner IS NOT NULL AND {done}
          AND COALESCE(CASE WHEN json_valid({table}.result) THEN json_extract({table}.result, '$.error_kind') END,
                       '') NOT IN ('internal', 'authoring')""",
    "postgresql": """
        SELECT {table}.exercise_id AS exercise_id, {table}.learner AS learner,
               CASE WHEN json_typeof(t.value) = 'object' THEN t.value ->> 'check' END AS chk,
               CASE WHEN json_typeof(t.value) = 'object' THEN t.value ->> 'status' END AS st
        FROM {table} CROSS JOIN LATERAL json_array_elements(
               CASE WHEN json_typeof({table}.result -> 'tests') = 'array'
                    THEN {table}.result -> 'tests' ELSE '[]'::json END) AS t(value)
        WHERE {table}.learner IS NOT NULL AND {done}
          AND COALESCE({table}.result ->> 'error_kind', '') NOT IN ('internal', 'authoring')""",
}
_TABLES = (("submissions", "submissions.status = 'done'"), ("quiz_attempts", "1 = 1"))


def failing_checks() -> list[tuple[str, str, int]]:
    """(exercise, check, learners hitting it) over submissions and quiz attempts together."""
    expanded = _EXPANDED["postgresql" if db.engine.dialect.name == "postgresql" else "sqlite"]
    every = " UNION ALL ".join(expanded.format(table=table, done=done) for table, done in _TABLES)
    # Only this module's constant fragments and table names: nothing from a request.
    sql = (f"SELECT exercise_id, chk, COUNT(DISTINCT learner) FROM ({every}) AS every_test "  # noqa: S608
           "WHERE st IN ('fail', 'error') AND chk IS NOT NULL AND chk != '' GROUP BY exercise_id, chk")
    return [(row[0], row[1], int(row[2])) for row in db.session.execute(text(sql))]


@dataclass(frozen=True)
class FailingCheck:
    """How often one check failed in one exercise: results that failed it, learners who hit it."""

    check: str
    results: int
    learners: int


def failing_checks_of(exercise_id: str) -> list[FailingCheck]:
    """One exercise's failing checks, most learners first (the drill-down page)."""
    expanded = _EXPANDED["postgresql" if db.engine.dialect.name == "postgresql" else "sqlite"]
    every = " UNION ALL ".join(expanded.format(table=table, done=f"{done} AND {table}.exercise_id = :ex")
                               for table, done in _TABLES)
    # The exercise id is a bound parameter; the rest is this module's constant text.
    sql = (f"SELECT chk, COUNT(*), COUNT(DISTINCT learner) FROM ({every}) AS every_test "  # noqa: S608
           "WHERE st IN ('fail', 'error') AND chk IS NOT NULL AND chk != '' GROUP BY chk")
    rows = db.session.execute(text(sql), {"ex": exercise_id})
    found = [FailingCheck(str(row[0]), int(row[1]), int(row[2])) for row in rows]
    return sorted(found, key=lambda f: (-f.learners, -f.results, f.check))
