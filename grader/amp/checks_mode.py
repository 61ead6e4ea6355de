"""Checks on what the loop does with the model and batches it is given: training mode, the device."""

from __future__ import annotations

from grader.amp.findings import Context, Finding, failed, passed, skipped
from grader.amp.registry import register

SLUG_MODE = "train-mode"
SLUG_DEVICE = "batch-on-device"


def _no_forward(ctx: Context, slug: str) -> Finding:
    return ctx.stopped(slug) if ctx.trace.raised else skipped(slug, {
        "en": "Not checked: your function never calls the model.",
        "ja": "未確認: 関数がモデルを一度も呼んでいません。"})


@register(SLUG_MODE,
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
