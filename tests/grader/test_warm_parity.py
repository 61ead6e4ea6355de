"""Warm and cold sandboxes give identical verdicts over the AMP corpus (a representative subset).

tests/amp/test_amp_corpus.py grades all 105 corpus submissions through grade_code, whose
local sandbox takes a warm one whenever its pool has one ready, so both paths meet the
whole corpus there. This test pins the comparison itself, cheaply: for one submission of
each distinct expected outcome of amp-train-one-epoch (every correct style is the same
outcome; each mistake class is its own), the warm and the cold document must agree on
status, error kind, the set of failing checks and every test's message and line.
"""

from __future__ import annotations

import pytest

from grader.loader import load_exercise
from grader.sandboxes import pool as pools
from grader.sandboxes.base import Job
from grader.sandboxes.local import LocalSandbox
from grader.sandboxes.local_warm import LocalMember
from grader.schema import MAX_TIME_S
from tests.amp.corpus_cases import EXERCISES, cases, failing_checks
from tests.conftest import copy_with_time_limit

EXERCISE = "amp-train-one-epoch"
SUBSET_SIZE = 5  # one pass and four mistake classes: about 10 gradings in all


def representative() -> list:
    everything = cases(EXERCISE)
    chosen = [next(case for case in everything if case.status == "pass")]
    seen = {("pass", frozenset())}
    for case in everything:
        outcome = (case.status, case.failing)
        if outcome not in seen:
            seen.add(outcome)
            chosen.append(case)
    return chosen[:SUBSET_SIZE]


def essence(doc: dict) -> dict:
    return {"status": doc["status"], "error_kind": doc["error_kind"], "failing": failing_checks(doc),
            "tests": [(t["check"], t["status"], t["message"], t["line"]) for t in doc["tests"]]}


@pytest.mark.slow
@pytest.mark.parametrize("case", representative(), ids=lambda case: case.id)
def test_warm_and_cold_verdicts_are_identical(case, monkeypatch, tmp_path):
    monkeypatch.setenv("GRADER_POOL_SIZE", "0")
    pools.close_all()
    # The longest limit an exercise may have: a busy host must not turn either run into a
    # timeout (the verdicts compared are the checks', not the clock's).
    exercise = load_exercise(copy_with_time_limit(EXERCISES / case.exercise, tmp_path, MAX_TIME_S))
    job = Job(exercise=exercise, code=case.code)
    sandbox = LocalSandbox()
    cold = sandbox._run_cold(job)
    warm = sandbox._run_warm(LocalMember.spawn(), job, "grade")
    assert essence(warm) == essence(cold)
    assert cold["status"] == case.status and failing_checks(cold) == case.failing
