"""AMP grading: a tracer that records a mixed-precision training loop, and checks that judge it.

Two halves, one on each side of the process boundary:

- runner side (the learner's process): `tracer.Tracer` instruments torch's base classes
  (autocast, GradScaler, Tensor.backward, Optimizer, clipping, Module._apply) and records
  events with the learner's line; `grader.scenarios.amp` builds the model, data and scaler,
  maps "cuda" to the CPU where there is no GPU, calls the learner's function under the tracer
  and returns the events as data.
- harness side: `review.Review(result, learner.source, LoopSpec(...))` parses the events
  (`trace`), adds a static pass over the source (`static`), explains torch's protocol errors
  (`crash`) and answers `finding(slug)` for each check (`checks_*`); `outcome` compares the
  weights with the reference solution's, run in the learner's precision.

An exercise test file (see exercises/amp-*/tests/) looks like:

    @pytest.fixture(scope="module")
    def review(learner):
        result = learner.scenario("amp.train_one_epoch", **PARAMS)
        return Review(result, learner.source, LoopSpec(accumulate=4))

    @check("update-after-step", title=TITLES["update-after-step"], hint=HINTS["update-after-step"])
    def test_update_after_step(review, lang):
        review.finding("update-after-step").enforce(lang)
"""
