"""Checks for amp-clip-gradients: unscale_ before clipping, the protocol around it, the outcome."""

from grader.author import amp

# The run, the reference and every check's settings: the [amp] table of exercise.toml.
trained, reference, review = amp.fixtures()

# given=True on what the starter (an AMP loop without clipping) already does right.
test_unscale_before_clip = amp.check("unscale-before-clip")
test_batch_on_device = amp.check("batch-on-device", given=True)
test_forward_in_autocast = amp.check("forward-in-autocast", given=True)
test_backward_outside_autocast = amp.check("backward-outside-autocast", given=True)
test_backward_on_scaled_loss = amp.check("backward-on-scaled-loss", given=True)
test_step_through_scaler = amp.check("step-through-scaler", given=True)
test_update_after_step = amp.check("update-after-step", given=True)
test_zero_grad_each_iteration = amp.check("zero-grad-each-iteration", given=True)
test_fp32_master_weights = amp.check("fp32-master-weights", given=True)
test_one_scaler = amp.check("one-scaler", given=True)
test_runs = amp.runs(given=True)
test_mean_loss_returned = amp.check("mean-loss-returned", depends=["runs"], given=True)
test_weights_match_reference = amp.weights(
    depends=["runs"], title={"en": "Clips like the reference", "ja": "模範解答と同じようにクリップする"},
    hint={"en": "Clip model.parameters() to the max_norm argument, after scaler.unscale_.",
          "ja": "scaler.unscale_ の後で、引数の max_norm で model.parameters() をクリップしましょう。"})
