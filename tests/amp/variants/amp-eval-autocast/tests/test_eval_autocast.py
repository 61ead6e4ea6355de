"""Checks for amp-eval-autocast: the forward pass under bfloat16 autocast, evaluation-only."""

from grader.author import amp

# The run, the reference and every check's settings: the [amp] table of exercise.toml (mode = "eval").
trained, reference, review = amp.fixtures()

# given=True on what the starter (a float32 evaluation loop) already does right.
test_forward_in_autocast = amp.check("forward-in-autocast")
test_bf16_autocast = amp.check("bf16-autocast", depends=["forward-in-autocast"])
test_eval_mode = amp.check("eval-mode", given=True)
test_no_grad_in_eval = amp.check("no-grad-in-eval", given=True)
test_no_training_in_eval = amp.check("no-training-in-eval", given=True)
test_fp32_master_weights = amp.check("fp32-master-weights", given=True)  # a model.half() added is seen
test_batch_on_device = amp.check("batch-on-device", given=True)
test_runs = amp.runs(given=True, title={"en": "evaluate runs to the end", "ja": "evaluate が最後まで動く"})
test_mean_loss_returned = amp.check("mean-loss-returned", depends=["runs"], given=True)
test_weights_match_reference = amp.weights(
    depends=["runs"], given=True,
    title={"en": "Leaves the weights as they were", "ja": "重みを変えない"},
    hint={"en": "Evaluating must not change the model: no backward pass and no optimizer step.",
          "ja": "評価でモデルを変えてはいけません。backward も optimizer の step も不要です。"})
