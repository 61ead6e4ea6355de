"""The custom-loss check: a loss autocast does not run in float32 must be given float32 outputs."""

from __future__ import annotations

from grader.amp.findings import Context, Finding, failed, passed, skipped
from grader.amp.registry import register

SLUG_LOSS = "loss-in-float32"


@register(SLUG_LOSS, needs=("custom-loss",),
          title={"en": "The custom loss is computed in float32", "ja": "独自の損失を float32 で計算する"},
          hint={"en": "Autocast runs cross-entropy in float32 for you, but not a hand-written loss: give it "
                      "`outputs.float()` so that it adds up in float32.",
                "ja": "autocast はクロスエントロピーなら float32 で計算しますが、手書きの損失はそうしません。"
                      "`outputs.float()` を渡して float32 で計算しましょう。"})
def loss_in_float32(ctx: Context) -> Finding:
    # Left in float16 the loss rounds away small differences, overflows past 65504 and, once a
    # GradScaler multiplies it by 65536, is inf; bfloat16 keeps the range but only 8 bits.
    losses = ctx.trace.of("loss")
    if not losses:
        return ctx.stopped(SLUG_LOSS) if ctx.trace.raised else skipped(SLUG_LOSS, {
            "en": "Not checked: your function never computes the loss.",
            "ja": "未確認：関数が損失を一度も計算していません。"})
    low = [e for e in losses if e.get("dtype") not in ("float32", "float64")]
    if not low:
        return passed(SLUG_LOSS)
    first = low[0]
    line, dtype = first.get("line"), first.get("dtype")
    return failed(SLUG_LOSS, {
        "en": f"The loss on line {line} is computed in {dtype}: autocast does not run this loss in float32, "
              f"so it stays in {dtype} ({len(low)} of {len(losses)} batches), where its mean loses precision"
              + (" and can overflow, even more once the scaler multiplies it." if dtype == "float16" else "."),
        "ja": f"{line} 行目の損失は {dtype} で計算されています。autocast はこの損失を float32 にしないため "
              f"{dtype} のままとなり（{len(losses)} バッチ中 {len(low)} バッチ）、平均の精度が落ちます"
              + ("。さらにスケーラーが掛けるとオーバーフローしやすくなります。" if dtype == "float16" else "。")}, line)
