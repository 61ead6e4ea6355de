"""Checks for amp-bf16: bfloat16 autocast with no scaler is right; float16 with no scaler is not."""

from grader.author import amp

# The run, the reference and every check's settings: the [amp] table of exercise.toml.
trained, reference, review = amp.fixtures()

# given=True on what the starter (a float16 loop without a scaler) already does right: credit
# is for choosing bfloat16 (and so not running an unscaled float16 backward).
test_batch_on_device = amp.check("batch-on-device", given=True)
test_forward_in_autocast = amp.check("forward-in-autocast", given=True)
test_bf16_autocast = amp.check("bf16-autocast")
test_backward_on_scaled_loss = amp.check(
    "backward-on-scaled-loss",
    title={"en": "No float16 backward without a GradScaler", "ja": "GradScaler なしで float16 の逆伝播をしない"},
    hint={"en": "Autocast to bfloat16, which needs no loss scaling; float16 would need a GradScaler.",
          "ja": "ロススケーリングの要らない bfloat16 の autocast を使いましょう。float16 なら GradScaler が必要です。"})
test_backward_outside_autocast = amp.check("backward-outside-autocast", given=True)
test_zero_grad_each_iteration = amp.check("zero-grad-each-iteration", given=True)
test_fp32_master_weights = amp.check("fp32-master-weights", given=True)
test_runs = amp.runs(given=True)
test_mean_loss_returned = amp.check("mean-loss-returned", depends=["runs"], given=True)
test_weights_match_reference = amp.weights(depends=["runs"], given=True)
