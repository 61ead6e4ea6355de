"""The last, partial accumulation window: its gradients must be stepped too (issue 37)."""

from __future__ import annotations

from grader.amp.findings import Context, Finding, failed, passed, skipped
from grader.amp.registry import register

SLUG_LAST = "last-window-stepped"


@register(SLUG_LAST, needs=("accumulate", "partial-window", "train"),
          title={"en": "The last, partial window is stepped too",
                 "ja": "最後の不完全なウィンドウもステップする"},
          hint={"en": "When the loader's batches run out before a window is full, the gradients of those last "
                      "batches still need their optimizer step: step after the last batch as well.",
                "ja": "ウィンドウがいっぱいになる前にローダーのバッチが尽きても、最後のバッチたちの勾配にはステップが"
                      "必要です。最後のバッチの後にもステップしましょう。"})
def last_window_stepped(ctx: Context) -> Finding:
    trace, k, rest = ctx.trace, ctx.spec.accumulate, ctx.spec.partial_window
    if trace.raised:
        return ctx.stopped(SLUG_LAST)
    iterations = trace.iterations
    backwards = [b for it in iterations[-rest:] for b in it.of("backward")]
    if len(iterations) < trace.batches or not backwards:
        # The last batches were not trained at all: the every-batch check's finding, not this one's.
        return skipped(SLUG_LAST, {
            "en": "Not checked: the last batches were not trained on (see the every-batch check).",
            "ja": "未確認：最後のバッチで学習していません（すべてのバッチのチェックを参照）。"})
    steps = trace.of("scaler-step", "optimizer-step")
    if trace.after(backwards[-1], steps):
        return passed(SLUG_LAST)
    first, last = trace.batches - rest + 1, trace.batches
    step = trace.before(backwards[-1], steps)
    at = step[-1].get("line") if step else None
    condition = ctx.static.condition_of(at)
    where_en = f"the step on line {at} runs only for a full window of {k}" if at else "nothing steps after them"
    where_ja = (f"{at} 行目のステップは {k} 個そろったウィンドウでしか実行されない" if at
                else "その後にステップがない")
    cond_en = f" (the condition on line {condition})" if condition else ""
    cond_ja = f"（{condition} 行目の条件）" if condition else ""
    return failed(SLUG_LAST, {
        "en": f"The last {rest} of the {trace.batches} batches ({first}-{last}) make a partial window: their "
              f"gradients are computed but never used, because {where_en}{cond_en}. Step once more after the "
              "last batch.",
        "ja": f"{trace.batches} バッチのうち最後の {rest} バッチ（{first}〜{last} 番目）は {k} 個に満たない最後の"
              f"ウィンドウです。{where_ja}ため{cond_ja}、これらの勾配は計算されるだけで使われていません。"
              "最後のバッチの後にもステップしましょう。"}, condition or at)
