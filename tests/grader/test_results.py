"""Results document v1: scoring, statuses and the validation applied to documents from a sandbox."""

from __future__ import annotations

import pytest

from grader.results import TestResult, cap_output, error_result, summarize, validate_document


def result(status: str, points: float = 0) -> TestResult:
    return TestResult(name="t", check="c", title="T", status=status, points=points)  # type: ignore[arg-type]


def test_summarize_scores_and_status() -> None:
    passed = summarize("ex", [result("pass", 1), result("pass", 1)])
    assert passed.status == "pass" and passed.score == 1.0
    mixed = summarize("ex", [result("pass", 1), result("fail"), result("skip")])
    assert mixed.status == "fail" and mixed.score == pytest.approx(1 / 3, abs=1e-4)
    assert summarize("ex", []).status == "fail"  # no checks ran: never a pass


def test_error_result_and_round_trip_validation() -> None:
    doc = error_result("ex", "timeout", "too slow", output="x" * 100).to_dict()
    assert doc["version"] == 1 and doc["status"] == "error" and doc["error_kind"] == "timeout"
    assert validate_document(doc) is doc


def test_blocked_by_is_a_slug_or_null() -> None:
    row = {"status": "skip", "check": "b", "title": "B", "message": "depends on 'a'", "blocked_by": "a"}
    doc = {"version": 1, "status": "fail", "score": 0, "tests": [row, {"status": "pass"}]}
    checked = validate_document(doc)
    assert [t["blocked_by"] for t in checked["tests"]] == ["a", None]
    for forged in ("A B", "<script>", "x" * 65, 7):
        with pytest.raises(ValueError, match="blocked_by"):
            validate_document({**doc, "tests": [{**row, "blocked_by": forged}]})


@pytest.mark.parametrize("broken", [
    [], {"version": 2}, {"version": 1, "status": "great", "tests": [], "score": 1},
    {"version": 1, "status": "pass", "tests": [{"status": "won"}], "score": 1},
    {"version": 1, "status": "pass", "tests": [], "score": 7},
    {"version": 1, "status": "pass", "tests": [], "score": 1, "error_kind": "cosmic-ray"},
])
def test_validate_rejects_forged_or_broken(broken: object) -> None:
    with pytest.raises(ValueError):
        validate_document(broken)


def test_output_is_capped() -> None:
    assert cap_output("abc", 10) == "abc"
    capped = cap_output("a" * 50, 10)
    assert capped.startswith("a" * 10) and "40 more characters" in capped
