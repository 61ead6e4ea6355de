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
    max_points: float = 1


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


def summarize(exercise: str, tests: list[TestResult], **extra: Any) -> Results:
    """Score the tests and choose the overall status: pass only when every check passed."""
    max_points = sum(t.max_points for t in tests)
    points = sum(t.points for t in tests)
    score = round(points / max_points, 4) if max_points else 0.0
    failed = any(t.status in ("fail", "error") for t in tests)
    status: Status = "fail" if failed or not tests else "pass"
    return Results(exercise=exercise, status=status, score=score, tests=tests, **extra)


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
