"""Checks for amp-bf16-accumulate-partial: bfloat16, no scaler, windows of accum_steps and the last partial one."""

from grader.author import amp

# The run, the reference and every check's settings: the [amp] table of exercise.toml.
trained, reference, review = amp.fixtures()

test_forward_in_autocast = amp.check("forward-in-autocast")
test_bf16_autocast = amp.check("bf16-autocast", depends=["forward-in-autocast"])
test_no_scaler_in_bf16 = amp.check("no-scaler-in-bf16", given=True)
test_accumulation_window = amp.check("accumulation-window")
# given=True on what the starter (a bfloat16-less loop that steps every batch) already does right.
test_backward_outside_autocast = amp.check("backward-outside-autocast", given=True)
test_last_window_stepped = amp.check("last-window-stepped", given=True)
test_zero_grad_each_iteration = amp.check("zero-grad-each-iteration", given=True)
test_trains_every_batch = amp.check("trains-every-batch", given=True)
test_fp32_master_weights = amp.check("fp32-master-weights", given=True)  # a model.half() added is seen
test_batch_on_device = amp.check("batch-on-device", given=True)
test_runs = amp.runs(given=True)
test_mean_loss_returned = amp.check("mean-loss-returned", depends=["runs"], given=True)
test_weights_match_reference = amp.weights(
    depends=["runs"], title={"en": "Accumulates like the reference", "ja": "模範解答と同じように累積する"})
