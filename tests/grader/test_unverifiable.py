"""A check this grader cannot verify (CannotVerifyHere): counted neither way, never a pass."""

from __future__ import annotations

import itertools

import pytest

from grader.results import TestResult, rescore, settle, summarize, validate_document


def row(status: str, *, given: bool = False, unverifiable: bool = False, weight: float = 1) -> TestResult:
    points, stake = settle(status, weight, given, unverifiable=unverifiable)
    return TestResult(name="t", check="c", title="T", status=status, points=points,  # type: ignore[arg-type]
                      max_points=stake, given=given, unverifiable=unverifiable)


def test_an_unverifiable_skip_earns_nothing_and_puts_nothing_at_stake() -> None:
    assert settle("skip", 3, False, unverifiable=True) == (0.0, 0.0)
    assert settle("skip", 3, True, unverifiable=True) == (0.0, 0.0)
    # Only a skip can be unverifiable: a failure still costs its points, a pass still earns them.
    assert settle("fail", 3, False, unverifiable=True) == (0.0, 3)
    assert settle("pass", 3, False, unverifiable=True) == (3, 3)


@pytest.mark.parametrize("others", list(itertools.product(["pass", "fail", "error", "skip"], repeat=2)))
def test_the_score_is_that_of_the_other_checks(others) -> None:
    with_it = summarize("ex", [row(s) for s in others] + [row("skip", unverifiable=True)])
    without = summarize("ex", [row(s) for s in others])
    assert (with_it.status, with_it.score) == (without.status, without.score)
    if with_it.status != "pass":
        assert with_it.score < 1.0  # failing work never shows 100 %


def test_the_starter_gains_nothing_and_nothing_verified_is_no_pass() -> None:
    starter = summarize("ex", [row("pass", given=True), row("fail"), row("skip", unverifiable=True)])
    assert (starter.status, starter.score) == ("fail", 0.0)
    alone = summarize("ex", [row("skip", unverifiable=True)])
    assert (alone.status, alone.score) == ("fail", 0.0)


def _doc(tests: list[dict]) -> dict:
    return {"version": 1, "exercise": "ex", "status": "pass", "score": 1.0, "tests": tests}


def test_the_flag_survives_validation_and_rescoring_only_on_a_skip() -> None:
    skip = {"name": "t", "check": "c", "title": "T", "status": "skip", "points": 0, "max_points": 0,
            "given": False, "unverifiable": True}
    passed = dict(skip, check="d", status="pass", points=1, max_points=1)
    doc = validate_document(_doc([skip, dict(passed), dict(passed, check="e", unverifiable=True)]))
    assert [t["unverifiable"] for t in doc["tests"]] == [True, False, False]
    again = rescore(doc)
    assert (again["status"], again["score"]) == ("pass", 1.0)
    assert (again["tests"][0]["points"], again["tests"][0]["max_points"]) == (0, 0)
    # A failure cannot hide behind the flag.
    failed = rescore(validate_document(_doc([dict(skip, status="fail"), dict(passed)])))
    assert failed["tests"][0]["max_points"] == 1 and failed["status"] == "fail" and failed["score"] < 1
