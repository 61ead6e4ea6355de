"""Checks for amp-fix-the-loop: each AMP mistake by name and line, then the outcome."""

from grader.author import amp

# The run, the reference and every check's settings: the [amp] table of exercise.toml.
trained, reference, review = amp.fixtures()

# given=True on what the starter already does right: credit is for each mistake fixed.
test_batch_on_device = amp.check("batch-on-device", given=True)
test_forward_in_autocast = amp.check("forward-in-autocast", given=True)
test_backward_outside_autocast = amp.check("backward-outside-autocast")
test_backward_on_scaled_loss = amp.check("backward-on-scaled-loss", given=True)
test_step_through_scaler = amp.check("step-through-scaler", given=True)
test_update_after_step = amp.check("update-after-step", given=True)
test_zero_grad_each_iteration = amp.check("zero-grad-each-iteration")
test_fp32_master_weights = amp.check("fp32-master-weights", given=True)
test_one_scaler = amp.check("one-scaler")
test_runs = amp.runs(given=True)
test_mean_loss_returned = amp.check("mean-loss-returned", depends=["runs"], given=True)
test_weights_match_reference = amp.weights(
    depends=["runs"], given=True,
    hint={"en": "Fix the AMP checks above; a correct loop ends with the reference's weights.",
          "ja": "上の AMP チェックを直しましょう。正しいループなら模範解答と同じ重みになります。"})
