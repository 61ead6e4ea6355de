"""Checks for amp-bf16-clip: clipping after backward and before the step, with no GradScaler."""

from grader.author import amp

# The run, the reference and every check's settings: the [amp] table of exercise.toml.
trained, reference, review = amp.fixtures()

# given=True on what the starter (a bfloat16 loop without clipping) already does right.
test_clip_before_step = amp.check("clip-before-step")
test_batch_on_device = amp.check("batch-on-device", given=True)
test_forward_in_autocast = amp.check("forward-in-autocast", given=True)
test_bf16_autocast = amp.check("bf16-autocast", given=True)
test_backward_outside_autocast = amp.check("backward-outside-autocast", given=True)
test_backward_on_scaled_loss = amp.check(
    "backward-on-scaled-loss", given=True,
    title={"en": "No float16 backward without a GradScaler", "ja": "GradScaler なしで float16 の backward をしない"})
test_zero_grad_each_iteration = amp.check("zero-grad-each-iteration", given=True)
test_fp32_master_weights = amp.check("fp32-master-weights", given=True)
test_runs = amp.runs(given=True)
test_mean_loss_returned = amp.check("mean-loss-returned", depends=["runs"], given=True)
test_weights_match_reference = amp.weights(
    depends=["runs"], title={"en": "Clips like the reference", "ja": "模範解答と同じようにクリップする"},
    hint={"en": "Clip the norm of model.parameters() to the max_norm argument, between backward and the step.",
          "ja": "backward と step の間で、model.parameters() のノルムを引数の max_norm にクリップしましょう。"})
