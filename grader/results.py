"""The results document, schema version 1: the same from the CLI, the sandbox and the web API."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from grader.figures import validate_figures

VERSION = 1
Status = Literal["pass", "fail", "error"]
TestStatus = Literal["pass", "fail", "error", "skip"]
ErrorKind = Literal["syntax", "timeout", "memory", "output-limit", "runtime", "internal"]
ERROR_KINDS: tuple[str, ...] = ("syntax", "timeout", "memory", "output-limit", "runtime", "internal")
OUTPUT_CAP_CHARS = 64 * 1024


@dataclass
class TestResult:
    """One check as the learner sees it."""

    __test__ = False  # a result, not a pytest test class, despite its name

    name: str
    check: str
    title: str
    status: TestStatus
    message: str = ""
    hint: str = ""
    line: int | None = None
    points: float = 0
    max_points: float = 1  # the points at stake (settle()): 0 for a given check that holds
    given: bool = False  # the untouched starter already passes this check (additive in v1)


@dataclass
class Results:
    """A whole grading outcome."""

    exercise: str
    status: Status
    score: float = 0.0
    error_kind: ErrorKind | None = None
    message: str = ""
    tests: list[TestResult] = field(default_factory=list)
    advice: list[str] = field(default_factory=list)
    output: str = ""
    duration_s: float = 0.0
    line: int | None = None  # for syntax and runtime errors: the learner's line
    version: int = VERSION
    # Optional, additive: charts for the feedback as numbers (grader/figures.py), never markup.
    figures: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def settle(status: str, weight: float, given: bool) -> tuple[float, float]:
    """(points earned, points at stake) of one check: the scoring rule, in one place.

    A passing check earns its weight, except a given one (the starter already passed it),
    which earns nothing and puts nothing at stake. A check that did not pass (failed, errored
    or was not checked) earns nothing and puts its weight at stake, given or not. So the
    untouched starter scores 0, any check not passing keeps the score below 1, and making a
    check pass never lowers the score (docs/exercises.md, "Scores").
    """
    if status == "pass":
        return (0.0, 0.0) if given else (weight, weight)
    return 0.0, weight


def score_of(tests: list[TestResult] | list[dict[str, Any]]) -> tuple[Status, float]:
    """The verdict and score of settled checks: pass exactly when every check passed."""
    rows = [t if isinstance(t, dict) else asdict(t) for t in tests]
    at_stake = sum(float(t["max_points"]) for t in rows)
    earned = sum(float(t["points"]) for t in rows)
    solved = bool(rows) and all(t["status"] == "pass" for t in rows)
    if at_stake:
        score = round(earned / at_stake, 4)
    else:  # nothing at stake: only given checks, all passing (validate refuses such a folder)
        score = 1.0 if solved else 0.0
    if not solved:
        # Rounding must never show a failing submission as 100 %.
        score = min(score, 0.9999)
    return ("pass" if solved else "fail"), score


def summarize(exercise: str, tests: list[TestResult], **extra: Any) -> Results:
    """Score the tests and choose the overall status: pass only when every check passed."""
    status, score = score_of(tests)
    return Results(exercise=exercise, status=status, score=score, tests=tests, **extra)


def rescore(doc: dict[str, Any]) -> dict[str, Any]:
    """A stored results document scored by today's rule (idempotent; errors are kept as they are).

    Documents stored before `given` existed marked a given check with max_points 0 and let it
    fail without cost; such a check is given, of weight 1, and a failing one now costs its point.
    """
    tests = doc.get("tests")
    if doc.get("status") == "error" or not isinstance(tests, list) or not tests:
        return doc
    for test in tests:
        stake = float(test.get("max_points") or 0)
        given = bool(test.get("given", stake == 0))
        weight = stake if stake > 0 else 1.0
        test["given"] = given
        test["points"], test["max_points"] = settle(test.get("status", "fail"), weight, given)
    doc["status"], doc["score"] = score_of(tests)
    return doc


def error_result(
    exercise: str, kind: ErrorKind, message: str, *, line: int | None = None, output: str = "",
    duration_s: float = 0.0,
) -> Results:
    """A run that produced no verdict on the checks (the learner's error, or ours if internal)."""
    return Results(
        exercise=exercise, status="error", error_kind=kind, message=message, line=line,
        output=cap_output(output), duration_s=duration_s,
    )


def cap_output(text: str, cap: int = OUTPUT_CAP_CHARS) -> str:
    if len(text) <= cap:
        return text
    return text[:cap] + f"\n… [output truncated: {len(text) - cap} more characters]"


def validate_document(doc: Any) -> dict[str, Any]:
    """Check a document read from outside (a sandbox's results.json) before trusting it."""
    if not isinstance(doc, dict) or doc.get("version") != VERSION:
        raise ValueError("not a results document of version 1")
    if doc.get("status") not in ("pass", "fail", "error"):
        raise ValueError("bad status")
    if doc.get("error_kind") not in (None, *ERROR_KINDS):
        raise ValueError("bad error_kind")
    tests = doc.get("tests")
    if not isinstance(tests, list):
        raise ValueError("tests must be a list")
    for test in tests:
        if not isinstance(test, dict) or test.get("status") not in ("pass", "fail", "error", "skip"):
            raise ValueError("bad test entry")
    score = doc.get("score")
    if not isinstance(score, (int, float)) or not 0 <= score <= 1:
        raise ValueError("score out of range")
    if "figures" in doc:
        doc["figures"] = validate_figures(doc["figures"])
    return doc
