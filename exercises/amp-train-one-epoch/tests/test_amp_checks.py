"""AMP protocol checks for amp-train-one-epoch: one check per mistake, naming the line."""

import pytest

from grader.amp.findings import LoopSpec
from grader.amp.lazy_dynamo import defer_dynamo_import
from grader.amp.review import Review
from grader.amp.texts import HINTS, TITLES
from grader.testing import check

# Collected before any test runs: the reference run in test_basics.py then trains without
# torch's compiler import (about 1.5 s of CPU per grading).
defer_dynamo_import()

# The loop is traced once on a GPU-style request: on a CPU grader the scenario maps "cuda" to
# the CPU, so a loop written for CUDA is judged on its scoping and protocol all the same.
# The data seed is not the one in the learner's view.
PARAMS = {"seed": 5, "data_seed": 31337, "batches": 6, "batch_size": 8, "device": "cuda"}
SPEC = LoopSpec(entry="train_one_epoch")


@pytest.fixture(scope="module")
def review(learner):
    result = learner.scenario("amp.train_one_epoch", **PARAMS)
    found = Review(result, learner.source, SPEC)
    for note in found.advice:
        learner.advise(note)
    return found


def amp_check(slug):
    return check(slug, title=TITLES[slug], hint=HINTS[slug])


@amp_check("forward-in-autocast")
def test_forward_in_autocast(review, lang):
    review.finding("forward-in-autocast").enforce(lang)


@amp_check("backward-outside-autocast")
def test_backward_outside_autocast(review, lang):
    review.finding("backward-outside-autocast").enforce(lang)


@amp_check("backward-on-scaled-loss")
def test_backward_on_scaled_loss(review, lang):
    review.finding("backward-on-scaled-loss").enforce(lang)


@amp_check("step-through-scaler")
def test_step_through_scaler(review, lang):
    review.finding("step-through-scaler").enforce(lang)


@amp_check("update-after-step")
def test_update_after_step(review, lang):
    review.finding("update-after-step").enforce(lang)


@amp_check("zero-grad-each-iteration")
def test_zero_grad_each_iteration(review, lang):
    review.finding("zero-grad-each-iteration").enforce(lang)


@amp_check("unscale-before-clip")
def test_unscale_before_clip(review, lang):
    review.finding("unscale-before-clip").enforce(lang)


@amp_check("fp32-master-weights")
def test_fp32_master_weights(review, lang):
    review.finding("fp32-master-weights").enforce(lang)


@amp_check("one-scaler")
def test_one_scaler(review, lang):
    review.finding("one-scaler").enforce(lang)


@amp_check("trains-every-batch")
def test_trains_every_batch(review, lang):
    review.finding("trains-every-batch").enforce(lang)
