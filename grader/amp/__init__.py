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

Each check is registered once, with its title and hint, by `registry.register` on its function
in `checks_*`; an exercise's tests then declare it in one line through `grader.author.amp`
(see `kit` and docs/exercises.md):

    trained, reference, review = amp.fixtures("amp.train_one_epoch", PARAMS, amp.LoopSpec())
    test_update_after_step = amp.check("update-after-step")
"""
