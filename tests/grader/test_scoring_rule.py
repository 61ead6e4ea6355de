"""The scoring rule (grader.results.settle): honest both ways, over every combination of checks."""

from __future__ import annotations

import itertools

import pytest

from grader.results import TestResult, rescore, settle, summarize
from grader.testing import check

STATUSES = ("pass", "fail", "error", "skip")


def settled(status: str, weight: float, given: bool) -> TestResult:
    points, at_stake = settle(status, weight, given)
    return TestResult(name="t", check="c", title="T", status=status, points=points,  # type: ignore[arg-type]
                      max_points=at_stake, given=given)


# Every exercise shape up to three checks: each check given or not, weight 1 or 3.
SHAPES = [shape for n in range(1, 4) for shape in itertools.product([(False, 1), (True, 1), (False, 3), (True, 3)],
                                                                     repeat=n)
          if any(not given for given, _w in shape)]


def score(shape, statuses) -> tuple[str, float]:
    doc = summarize("ex", [settled(s, w, g) for (g, w), s in zip(shape, statuses, strict=True)])
    return doc.status, doc.score


@pytest.mark.parametrize("shape", SHAPES)
def test_the_rule_is_honest_both_ways(shape) -> None:
    starter = ["pass" if given else "fail" for given, _w in shape]
    assert score(shape, starter)[1] == 0  # the untouched starter earns nothing
    assert score(shape, ["pass"] * len(shape)) == ("pass", 1.0)
    for statuses in itertools.product(STATUSES, repeat=len(shape)):
        status, value = score(shape, statuses)
        solved = all(s == "pass" for s in statuses)
        assert (status == "pass") == solved
        assert (value == 1.0) == solved, (shape, statuses, value)  # any failing check costs points
        for index, was in enumerate(statuses):  # making one check pass never lowers the score
            if was != "pass":
                fixed = list(statuses)
                fixed[index] = "pass"
                assert score(shape, fixed)[1] >= value


def test_a_broken_given_check_costs_its_points() -> None:
    # The fixed AMP loop that still calls update() once after the loop: 3 fixes earned, 1 given broken.
    shape = [(False, 1)] * 3 + [(True, 1)] * 8
    statuses = ["pass"] * 3 + ["fail"] + ["pass"] * 7
    assert score(shape, statuses) == ("fail", 0.75)


def test_checks_carry_points() -> None:
    with pytest.raises(TypeError, match="given=True"):
        check("runs", points=0)
    with pytest.raises(TypeError, match="above 0"):
        check("runs", points=-1)
    assert check("runs", given=True)(lambda: None)._grader_check.given


def test_rescore_mends_an_old_document_and_is_idempotent(old_document: dict) -> None:
    doc = rescore(old_document)
    assert doc["status"] == "fail" and doc["score"] == pytest.approx(2 / 3, abs=1e-4)
    assert [t["given"] for t in doc["tests"]] == [False, False, True, True]
    again = rescore(dict(doc, tests=[dict(t) for t in doc["tests"]]))
    assert again == doc


def test_rescore_keeps_errors_and_a_skip_is_not_solved(old_document: dict) -> None:
    error = {"version": 1, "status": "error", "error_kind": "syntax", "score": 0.0, "tests": []}
    assert rescore(dict(error)) == error
    skipped = old_document
    skipped["tests"][2]["status"] = "skip"
    skipped["status"] = "pass"  # the old rule passed a submission whose check was never seen
    assert rescore(skipped)["status"] == "fail"
