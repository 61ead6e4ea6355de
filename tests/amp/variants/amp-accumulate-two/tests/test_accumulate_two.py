"""Checks for amp-accumulate-two: scaled micro-batches, one step per window of accum_steps, the outcome."""

from grader.author import amp

# The run, the reference and every check's settings: the [amp] table of exercise.toml (accumulate = 2).
trained, reference, review = amp.fixtures()

# given=True on what the starter (a correct one-step-per-batch AMP loop) already does right.
test_accumulation_window = amp.check("accumulation-window")
test_batch_on_device = amp.check("batch-on-device", given=True)
test_forward_in_autocast = amp.check("forward-in-autocast", given=True)
test_backward_outside_autocast = amp.check("backward-outside-autocast", given=True)
test_backward_on_scaled_loss = amp.check("backward-on-scaled-loss", given=True)
test_step_through_scaler = amp.check("step-through-scaler", given=True)
test_update_after_step = amp.check("update-after-step", given=True)
test_zero_grad_each_iteration = amp.check(
    "zero-grad-each-iteration", given=True,
    title={"en": "Gradients are cleared after each step, not each batch",
           "ja": "勾配は各バッチではなく各 step の後にクリアする"})
test_one_scaler = amp.check("one-scaler", given=True)
test_runs = amp.runs(given=True)
test_mean_loss_returned = amp.check("mean-loss-returned", depends=["runs"], given=True)
test_weights_match_reference = amp.weights(
    depends=["runs"], title={"en": "Accumulates like the reference", "ja": "模範解答と同じように累積する"})
