"""Checks on what the loop does with the model and batches it is given: training or evaluation mode, the device."""

from __future__ import annotations

from grader.amp.findings import Context, Finding, failed, passed, skipped
from grader.amp.registry import register

SLUG_MODE = "train-mode"
SLUG_DEVICE = "batch-on-device"


def _no_forward(ctx: Context, slug: str) -> Finding:
    return ctx.stopped(slug) if ctx.trace.raised else skipped(slug, {
        "en": "Not checked: your function never calls the model.",
        "ja": "未確認：関数がモデルを一度も呼んでいません。"})


@register(SLUG_MODE, needs=("train",),
          title={"en": "The model trains in training mode", "ja": "モデルを学習モードで学習する"},
          hint={"en": "Call `model.train()` at the start of the function: the model may arrive in "
                      "evaluation mode, where dropout and batch norm behave differently.",
                "ja": "関数の最初で `model.train()` を呼びましょう。モデルは評価モードで渡されることがあり、"
                      "そのままでは Dropout や BatchNorm の動きが学習時と異なります。"})
def train_mode(ctx: Context) -> Finding:
    # Asked with the scenario parameter "handover": "eval" (the model arrives in evaluation mode,
    # as after a validation pass), so a loop that never calls model.train() is seen even on a
    # model without dropout. Only for an exercise whose prompt asks for it.
    forwards = ctx.trace.of("forward")
    if not forwards:
        return _no_forward(ctx, SLUG_MODE)
    in_eval = [e for e in forwards if e.get("training") is False]
    if not in_eval:
        return passed(SLUG_MODE)
    line = in_eval[0].get("line")
    return failed(SLUG_MODE, {
        "en": f"{len(in_eval)} of {len(forwards)} forward passes (the first on line {line}) ran in "
              "evaluation mode: the model came in evaluation mode and was never switched back, so "
              "dropout and batch norm would not train.",
        "ja": f"{len(forwards)} 回の順伝播のうち {len(in_eval)} 回（最初は {line} 行目）が評価モードで"
              "実行されました。評価モードで渡されたモデルを学習モードに戻していないため、Dropout や "
              "BatchNorm が学習時の動きになりません。"}, ctx.def_line)


@register(SLUG_DEVICE,
          title={"en": "Each batch is moved to `device` before the forward pass",
                 "ja": "各バッチを順伝播の前に `device` へ移す"},
          hint={"en": "`tensor.to(device)` returns the moved tensor and leaves the original where it was: "
                      "keep what it returns and pass that to the model and the loss.",
                "ja": "`tensor.to(device)` は移した後のテンソルを返し、元のテンソルはそのままです。"
                      "戻り値を取っておき、それをモデルと損失に渡しましょう。"})
def batch_on_device(ctx: Context) -> Finding:
    # On a CPU grader the GPU the prompt asks for is emulated: a loader tensor that reaches the
    # model or the loss without .to(device) is seen by identity (grader/amp/hooks_train.py),
    # where a real GPU would stop with "Expected all tensors to be on the same device".
    forwards = ctx.trace.of("forward")
    if not forwards:
        return _no_forward(ctx, SLUG_DEVICE)
    unmoved = [e for e in ctx.trace.of("forward", "loss") if e.get("unmoved_batch")]
    if not unmoved:
        return passed(SLUG_DEVICE)
    first = unmoved[0]
    line = first.get("line")
    what_en, what_ja = (("the inputs", "入力") if first["kind"] == "forward" else ("the targets", "正解ラベル"))
    return failed(SLUG_DEVICE, {
        "en": f"On line {line}, {what_en} from the loader reach the "
              f"{'model' if first['kind'] == 'forward' else 'loss'} without being moved to `device`: on "
              "a GPU this stops with \"Expected all tensors to be on the same device\".",
        "ja": f"{line} 行目で、ローダーから受け取った{what_ja}が `device` に移されないまま"
              f"{'モデル' if first['kind'] == 'forward' else '損失'}に渡されています。GPU では "
              "\"Expected all tensors to be on the same device\" で停止します。"}, line)


# ---- evaluation under autocast (mode = "eval"): forward passes only, no autograd, no update --------
SLUG_EVAL = "eval-mode"
SLUG_NO_GRAD = "no-grad-in-eval"
SLUG_NO_TRAINING = "no-training-in-eval"


@register(SLUG_EVAL, needs=("eval",),
          title={"en": "The model evaluates in evaluation mode", "ja": "モデルを評価モードで評価する"},
          hint={"en": "Call `model.eval()` before the loop: dropout and batch norm must behave as at inference.",
                "ja": "ループの前に `model.eval()` を呼びましょう。Dropout や BatchNorm を推論時の動きにします。"})
def eval_mode(ctx: Context) -> Finding:
    forwards = ctx.trace.of("forward")
    if not forwards:
        return _no_forward(ctx, SLUG_EVAL)
    training = [e for e in forwards if e.get("training") is not False]
    if not training:
        return passed(SLUG_EVAL)
    line = training[0].get("line")
    return failed(SLUG_EVAL, {
        "en": f"{len(training)} of {len(forwards)} forward passes (the first on line {line}) ran in training "
              "mode: the model arrives in training mode, so dropout would drop and batch norm would update "
              "its statistics while you evaluate.",
        "ja": f"{len(forwards)} 回の順伝播のうち {len(training)} 回（最初は {line} 行目）が学習モードで実行されました。"
              "モデルは学習モードで渡されるため、評価中に Dropout が働き、BatchNorm の統計も更新されてしまいます。"},
        ctx.def_line)


@register(SLUG_NO_GRAD, needs=("eval",),
          title={"en": "Evaluation builds no autograd graph", "ja": "評価では計算グラフを作らない"},
          hint={"en": "Run the loop inside `with torch.no_grad():` (or `torch.inference_mode()`): evaluation "
                      "needs no gradients, and recording them costs memory for every batch.",
                "ja": "ループを `with torch.no_grad():`（または `torch.inference_mode()`）の中で実行しましょう。"
                      "評価に勾配は不要で、記録するとバッチごとにメモリを使います。"})
def no_grad_in_eval(ctx: Context) -> Finding:
    forwards = ctx.trace.of("forward")
    if not forwards:
        return _no_forward(ctx, SLUG_NO_GRAD)
    recorded = [e for e in forwards if e.get("grad_enabled") is not False]
    if not recorded:
        return passed(SLUG_NO_GRAD)
    line = recorded[0].get("line")
    return failed(SLUG_NO_GRAD, {
        "en": f"The forward pass on line {line} runs with gradients enabled, so autograd records a graph "
              f"for every batch ({len(recorded)} of {len(forwards)} forward passes) that nothing uses.",
        "ja": f"{line} 行目の順伝播は勾配が有効なまま実行されるため、使われない計算グラフがバッチごとに"
              f"記録されます（{len(forwards)} 回中 {len(recorded)} 回）。"}, line)


@register(SLUG_NO_TRAINING, needs=("eval",),
          title={"en": "Evaluation does not train the model", "ja": "評価ではモデルを学習させない"},
          hint={"en": "An evaluation loop only runs the model and the loss: no `backward()`, no optimizer or "
                      "scaler step, no `zero_grad()`.",
                "ja": "評価ループはモデルと損失を計算するだけです。`backward()`、オプティマイザやスケーラーのステップ、"
                      "`zero_grad()` は不要です。"})
def no_training_in_eval(ctx: Context) -> Finding:
    if not ctx.trace.of("forward"):
        return _no_forward(ctx, SLUG_NO_TRAINING)
    done = ctx.trace.of("backward", "optimizer-step", "scaler-step", "zero-grad")
    if not done:
        return passed(SLUG_NO_TRAINING)
    first = done[0]
    line = first.get("line")
    what = {"backward": "backward()", "optimizer-step": "optimizer.step()", "scaler-step": "scaler.step()",
            "zero-grad": "zero_grad()"}[first["kind"]]
    return failed(SLUG_NO_TRAINING, {
        "en": f"{what} on line {line} runs during evaluation: evaluating must leave the model as it was.",
        "ja": f"{line} 行目の `{what}` が評価中に実行されています。評価ではモデルを変えてはいけません。"}, line)
