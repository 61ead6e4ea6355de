"""AMP grading: a tracer that records a mixed-precision training loop, and checks that judge it.

Two halves, one on each side of the process boundary:

- runner side (the learner's process): `tracer.Tracer` instruments torch's base classes
  (autocast, GradScaler, Tensor.backward, Optimizer, clipping, Module._apply) and records
  events with the learner's line; `run` builds the model, data and (when the
  scenario has one) the scaler, maps "cuda" to the CPU where there is no GPU, calls the learner's
  function under the tracer and returns the events as data.
- harness side: `review.Review(result, learner.source, LoopSpec.of(scenario))` parses the events
  (`trace`), adds a static pass over the source (`static`), explains torch's protocol errors
  (`crash`) and answers `finding(slug)` for each check (`checks_*`); `outcome` checks the
  reference solution first in the same scenario, then compares the learner's weights with the
  reference's, run in the learner's precision.

The scenario is declared once, in the `[amp]` table of the exercise's exercise.toml
(`grader.amp_scenario.Scenario`). Each check is registered once, with its title, hint and the
scenarios it needs, by `registry.register` on its function in `checks_*`; an exercise's tests
then declare it in one line through `grader.author.amp` (see `kit` and docs/exercises.md):

    trained, reference, review = amp.fixtures()
    test_update_after_step = amp.check("update-after-step")
"""
