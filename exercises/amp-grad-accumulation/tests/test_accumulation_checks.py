"""Checks for amp-grad-accumulation: scaled micro-batches, one step per window, the outcome."""

from grader.author import amp

# The run, the reference and every check's settings: the [amp] table of exercise.toml.
trained, reference, review = amp.fixtures()

# given=True on what the starter (a correct one-step-per-batch AMP loop) already does right:
# credit is for the accumulation.
test_accumulation_window = amp.check("accumulation-window")
test_batch_on_device = amp.check("batch-on-device", given=True)
test_forward_in_autocast = amp.check("forward-in-autocast", given=True)
test_backward_outside_autocast = amp.check("backward-outside-autocast", given=True)
test_backward_on_scaled_loss = amp.check(
    "backward-on-scaled-loss", given=True,
    title={"en": "Every micro-batch's loss is scaled", "ja": "すべてのマイクロバッチの損失をスケールする"},
    hint={"en": "Write scaler.scale(loss / accum_steps).backward() for every batch.",
          "ja": "毎バッチ `scaler.scale(loss / accum_steps).backward()` と書きましょう。"})
test_step_through_scaler = amp.check(
    "step-through-scaler", given=True,
    title={"en": "The optimizer steps through the scaler", "ja": "オプティマイザはスケーラー経由でステップする"},
    hint={"en": "Step with scaler.step(optimizer), never optimizer.step() as well.",
          "ja": "`scaler.step(optimizer)` でステップし、`optimizer.step()` を重ねて呼ばないでください。"})
test_update_after_step = amp.check("update-after-step", given=True)
test_zero_grad_each_iteration = amp.check(
    "zero-grad-each-iteration", given=True,
    title={"en": "Gradients are cleared after each step, not each micro-batch",
           "ja": "勾配はマイクロバッチごとではなく、ステップの後にクリアする"},
    hint={"en": "Gradients must add up over the micro-batches of one step: clear them only where the "
                "optimizer has just stepped, not on every batch.",
          "ja": "1 ステップ分のマイクロバッチの勾配は足し合わせる必要があります。勾配のクリアは毎バッチではなく、"
                "オプティマイザがステップした直後だけにしましょう。"})
test_one_scaler = amp.check("one-scaler", given=True)
test_runs = amp.runs(given=True)
test_mean_loss_returned = amp.check("mean-loss-returned", depends=["runs"], given=True)
test_weights_match_reference = amp.weights(
    depends=["runs"], title={"en": "Accumulates like the reference", "ja": "模範解答と同じように累積する"})
