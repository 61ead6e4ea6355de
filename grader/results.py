"""The results document, schema version 1: the same from the CLI, the sandbox and the web API."""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from grader.figures import validate_figures
from grader.measurement import validate_measurement

VERSION = 1
Status = Literal["pass", "fail", "error"]
TestStatus = Literal["pass", "fail", "error", "skip"]
# "authoring": the exercise's tests are broken (grader.authoring), the author's error, not the learner's.
ErrorKind = Literal["syntax", "timeout", "memory", "output-limit", "runtime", "internal", "authoring"]
ERROR_KINDS: tuple[str, ...] = ("syntax", "timeout", "memory", "output-limit", "runtime", "internal", "authoring")
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
    # A skipped check this grader cannot verify (additive in v1): counts neither way (settle()).
    unverifiable: bool = False
    # A skipped check: the slug of the check it depends on that did not pass (additive in v1;
    # the message still says "depends on '<slug>'" for readers of older documents).
    blocked_by: str | None = None
    # The title, message and hint in the other language (additive in v1): pages show the
    # reader's current language, whichever the grading ran in.
    texts: dict[str, dict[str, str]] = field(default_factory=dict)


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
    # Optional, additive: where a measuring exercise measured and what (grader/measurement.py).
    measurement: dict[str, Any] | None = None
    # Optional, additive: the whole-run message and the advice in the other language
    # ({"ja": {"message": ..., "advice": [...]}}), as tests[].texts are for each check.
    texts: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def settle(status: str, weight: float, given: bool, *, unverifiable: bool = False) -> tuple[float, float]:
    """(points earned, points at stake) of one check: the scoring rule, in one place.

    A passing check earns its weight, except a given one (the starter already passed it),
    which earns nothing and puts nothing at stake. A check that did not pass (failed, errored
    or was not checked) earns nothing and puts its weight at stake, given or not. So the
    untouched starter scores 0, any check not passing keeps the score below 1, and making a
    check pass never lowers the score (docs/exercises.md, "Scores"). A skipped check that this
    grader cannot verify (CannotVerifyHere) earns nothing and puts nothing at stake: it is
    left out of the score, neither passed nor failed.
    """
    if status == "skip" and unverifiable:
        return 0.0, 0.0
    if status == "pass":
        return (0.0, 0.0) if given else (weight, weight)
    return 0.0, weight


def score_of(tests: list[TestResult] | list[dict[str, Any]]) -> tuple[Status, float]:
    """The verdict and score of settled checks: pass exactly when every check passed.

    Checks this grader could not verify are left out (they were skipped and said why); a
    document of nothing but those is not a pass.
    """
    rows = [t if isinstance(t, dict) else asdict(t) for t in tests]
    rows = [t for t in rows if not (t.get("unverifiable") is True and t["status"] == "skip")]
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
        test["unverifiable"] = test.get("unverifiable") is True and test.get("status") == "skip"
        test["points"], test["max_points"] = settle(test.get("status", "fail"), weight, given,
                                                    unverifiable=test["unverifiable"])
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


# What one results document may carry (validate_document): the harness writes far less; a
# document beyond these comes from a fault, and pages that show it stay bounded either way.
MAX_TESTS, MAX_ADVICE, MAX_TEXT_CHARS, MAX_DURATION_S = 50, 20, 4000, 1e6
# Characters kept of each text of a test: names and titles are short, messages may quote code.
TEST_TEXTS = {"name": 200, "check": 200, "title": 200, "message": 1000, "hint": 1000}


def _bounded_text(value: Any, field: str, cap: int = MAX_TEXT_CHARS) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{field} must be a string")
    # Long texts (a repr of a learner's value in a message) are cut, not refused.
    return value if len(value) <= cap else value[:cap] + "…"


def _bounded_number(value: Any, field: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{field} must be a number")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"{field} must be finite") from None
    if not (math.isfinite(number) and low <= number <= high):
        raise ValueError(f"{field} must be between {low:g} and {high:g}")
    return number


def _line(value: Any, field: str = "line") -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10**7:
        raise ValueError(f"{field} must be a whole number up to 10**7, or null")
    return value


def _validate_test(test: Any) -> dict[str, Any]:
    if not isinstance(test, dict) or test.get("status") not in ("pass", "fail", "error", "skip"):
        raise ValueError("bad test entry")
    clean = dict(test)
    for key, cap in TEST_TEXTS.items():
        clean[key] = _bounded_text(test.get(key), f"tests[].{key}", cap)
    clean["line"] = _line(test.get("line"), "tests[].line")
    for key, default in (("points", 0), ("max_points", 1)):
        clean[key] = _bounded_number(test.get(key, default), f"tests[].{key}", 0, 1e6)
    clean["given"] = test.get("given") is True
    # Only a skip can be unverifiable: a pass or a failure was verified.
    clean["unverifiable"] = test.get("unverifiable") is True and clean["status"] == "skip"
    clean["blocked_by"] = _slug_or_none(test.get("blocked_by"), "tests[].blocked_by")
    texts = test.get("texts") or {}
    if not isinstance(texts, dict) or not set(texts) <= {"en", "ja"}:
        raise ValueError("tests[].texts must map 'en' or 'ja' to texts")
    clean["texts"] = {lang: {key: _bounded_text((entry or {}).get(key) if isinstance(entry, dict) else None,
                                                f"tests[].texts.{lang}.{key}", TEST_TEXTS[key])
                             for key in ("title", "message", "hint")}
                      for lang, entry in texts.items()}
    return clean


def _validate_texts(texts: Any) -> dict[str, dict[str, Any]]:
    """The document's own texts in the other language: a message and the advice, bounded."""
    if texts is None:
        return {}
    if not isinstance(texts, dict) or not set(texts) <= {"en", "ja"}:
        raise ValueError("texts must map 'en' or 'ja' to texts")
    clean: dict[str, dict[str, Any]] = {}
    for lang, entry in texts.items():
        if not isinstance(entry, dict):
            raise ValueError(f"texts.{lang} must be an object")
        advice = entry.get("advice") or []
        if not isinstance(advice, list) or len(advice) > MAX_ADVICE:
            raise ValueError(f"texts.{lang}.advice must be a list of at most {MAX_ADVICE} texts")
        clean[lang] = {"message": _bounded_text(entry.get("message"), f"texts.{lang}.message"),
                       "advice": [_bounded_text(item, f"texts.{lang}.advice[]", 1000) for item in advice]}
    return clean


SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def _slug_or_none(value: Any, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not SLUG.fullmatch(value):
        raise ValueError(f"{field} must be a check slug (lower-case letters, digits, hyphens) or null")
    return value


def validate_document(doc: Any) -> dict[str, Any]:
    """Check a document read from outside (a sandbox's results.json) before trusting it.

    Numbers must be finite and in range, lists are bounded, long texts are cut; anything else
    raises ValueError naming the field, and the caller stores an internal error instead.
    """
    if not isinstance(doc, dict) or doc.get("version") != VERSION:
        raise ValueError("not a results document of version 1")
    if doc.get("status") not in ("pass", "fail", "error"):
        raise ValueError("bad status")
    if doc.get("error_kind") not in (None, *ERROR_KINDS):
        raise ValueError("bad error_kind")
    tests = doc.get("tests")
    if not isinstance(tests, list) or len(tests) > MAX_TESTS:
        raise ValueError(f"tests must be a list of at most {MAX_TESTS} entries")
    doc["tests"] = [_validate_test(test) for test in tests]
    doc["score"] = _bounded_number(doc.get("score"), "score", 0, 1)
    advice = doc.get("advice", [])
    if not isinstance(advice, list) or len(advice) > MAX_ADVICE:
        raise ValueError(f"advice must be a list of at most {MAX_ADVICE} texts")
    doc["advice"] = [_bounded_text(item, "advice[]", 1000) for item in advice]
    doc["message"] = _bounded_text(doc.get("message"), "message")
    doc["output"] = cap_output(_bounded_text(doc.get("output"), "output", 2 * OUTPUT_CAP_CHARS))
    doc["duration_s"] = _bounded_number(doc.get("duration_s", 0.0), "duration_s", 0, MAX_DURATION_S)
    doc["line"] = _line(doc.get("line"))
    for key in ("exercise",):
        doc[key] = _bounded_text(doc.get(key), key, 64)
    doc["texts"] = _validate_texts(doc.get("texts"))
    if "figures" in doc:
        doc["figures"] = validate_figures(doc["figures"])
    if doc.get("measurement") is not None:
        try:  # like a figure, a table that is not valid is dropped: it never costs a verdict
            doc["measurement"] = validate_measurement(doc["measurement"])
        except (ValueError, TypeError, AttributeError):
            doc["measurement"] = None
    return doc
