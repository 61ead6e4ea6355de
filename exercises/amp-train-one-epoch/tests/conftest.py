"""Shared fixtures: the learner's loop is traced once, and the reference trained once, per grading."""

import pytest

from grader.amp.findings import LoopSpec
from grader.amp.outcome import reference_run
from grader.amp.review import Review

# A GPU-style request: on a CPU grader the scenario maps "cuda" to the CPU, so a loop written
# for CUDA is judged on its scoping and protocol all the same. The data seed is not the one in
# the learner's view, so the outcome is compared on data the learner never saw.
PARAMS = {"seed": 7, "data_seed": 20261130, "batches": 6, "batch_size": 8, "device": "cuda"}
SPEC = LoopSpec(entry="train_one_epoch")


@pytest.fixture(scope="session")
def traced(learner):
    return learner.scenario("amp.train_one_epoch", **PARAMS)


@pytest.fixture(scope="session")
def reference(solution, traced):
    # In the learner's own precision: a correct float16 loop must not fail on bf16 rounding.
    return reference_run(solution, PARAMS, like=traced)


@pytest.fixture(scope="session")
def review(learner, traced):
    found = Review(traced, learner.source, SPEC)
    for note in found.advice:
        learner.advise(note)
    return found
