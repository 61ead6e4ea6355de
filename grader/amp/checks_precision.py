"""A GradScaler where the precision needs none: bfloat16 keeps float32's range (issue 37)."""

from __future__ import annotations

from grader.amp.findings import Context, Finding, failed, passed
from grader.amp.registry import register

SLUG_NO_SCALER = "no-scaler-in-bf16"


@register(SLUG_NO_SCALER, needs=("no-scaler", "bf16", "train"),
          title={"en": "No GradScaler in a bfloat16 loop",
                 "ja": "bfloat16 のループでは GradScaler を使わない"},
          hint={"en": "bfloat16 has float32's exponent range, so its gradients do not underflow: a bfloat16 loop "
                      "needs no loss scaling, and no GradScaler.",
                "ja": "bfloat16 は float32 と同じ指数の範囲をもつため、勾配がアンダーフローしません。bfloat16 の"
                      "ループにロススケーリングは不要で、GradScaler も要りません。"})
def no_scaler_in_bf16(ctx: Context) -> Finding:
    trace = ctx.trace
    # Only an enabled scaler does anything: GradScaler(enabled=False) is a no-op and costs nothing.
    made = [e for e in trace.of("scaler-init") if e.get("enabled")]
    used = [e for e in trace.of("scale", "scaler-step", "unscale") if e.get("enabled", True)]
    if not made and not used:
        return passed(SLUG_NO_SCALER)
    line = (made or used)[0].get("line")
    what_en = f"creates a GradScaler on line {line}" if made else f"scales with a GradScaler on line {line}"
    what_ja = (f"{line} 行目で GradScaler を作っています" if made
               else f"{line} 行目で GradScaler によるスケーリングをしています")
    return failed(SLUG_NO_SCALER, {
        "en": f"This loop runs in bfloat16 but {what_en}. bfloat16 keeps float32's range, so nothing "
              "underflows and there is nothing to scale: the scaler only multiplies and divides the gradients "
              "back, and can skip steps for no reason. Leave it out.",
        "ja": f"このループは bfloat16 で実行されるのに、{what_ja}。bfloat16 は float32 と同じ範囲をもつため"
              "アンダーフローは起きず、スケーリングするものがありません。スケーラーは勾配にスケールを掛けてからスケールを戻すだけで、"
              "理由もなくステップをスキップすることもあります。使わないようにしましょう。"}, line)
