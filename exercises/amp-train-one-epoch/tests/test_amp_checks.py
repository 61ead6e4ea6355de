"""Checks for amp-train-one-epoch: one check per AMP mistake, naming the line, then the outcome."""

from grader.author import amp

# The run, the reference and every check's settings: the [amp] table of exercise.toml.
trained, reference, review = amp.fixtures()

# given=True: the untouched starter already runs; credit is for the AMP work.
test_runs = amp.runs(given=True, hint={"en": "Run your function on a tiny model before you submit.",
                                     "ja": "提出する前に小さなモデルで関数を動かしてみましょう。"})
test_batch_on_device = amp.check("batch-on-device")
test_forward_in_autocast = amp.check("forward-in-autocast")
test_backward_outside_autocast = amp.check("backward-outside-autocast")
test_backward_on_scaled_loss = amp.check("backward-on-scaled-loss")
test_step_through_scaler = amp.check("step-through-scaler")
test_update_after_step = amp.check("update-after-step")
test_zero_grad_each_iteration = amp.check("zero-grad-each-iteration")
test_unscale_before_clip = amp.check("unscale-before-clip")
test_fp32_master_weights = amp.check("fp32-master-weights")
test_one_scaler = amp.check("one-scaler")
test_trains_every_batch = amp.check("trains-every-batch")
test_mean_loss_returned = amp.check("mean-loss-returned", depends=["runs"])
test_weights_match_reference = amp.weights(depends=["runs"])
