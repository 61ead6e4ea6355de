"""Checks on what autocast covers: the forward pass in, backward out, weights in float32."""

from __future__ import annotations

from grader.amp.findings import Context, Finding, failed, passed, skipped
from grader.amp.registry import register
from grader.amp.static import Switch

SLUG_FORWARD = "forward-in-autocast"
SLUG_BACKWARD = "backward-outside-autocast"
SLUG_WEIGHTS = "fp32-master-weights"
SLUG_BF16 = "bf16-autocast"


@register("forward-in-autocast", advises=True,
          title={"en": "The forward pass and the loss run under autocast",
                 "ja": "順伝播と損失の計算が autocast の中で行われる"},
          hint={"en": "Put `outputs = model(inputs)` and `loss = criterion(outputs, targets)` inside "
                      "`with torch.autocast(device_type=device.type, dtype=...):`.",
                "ja": "`outputs = model(inputs)` と `loss = criterion(outputs, targets)` を "
                      "`with torch.autocast(device_type=device.type, dtype=...):` の中に入れましょう。"})
def forward_in_autocast(ctx: Context) -> Finding:
    trace = ctx.trace
    _advise_deprecated(ctx)  # advice whatever the verdict: a failing loop may use the old spelling too
    forwards = trace.of("forward")
    if not forwards:
        if trace.raised:
            return ctx.stopped(SLUG_FORWARD)
        return failed(SLUG_FORWARD, {
            "en": f"The model was never called: {ctx.spec.entry} must run model(inputs) for every "
                  "batch.",
            "ja": "モデルが一度も呼ばれていません。バッチごとに `model(inputs)` を実行してくださ"
                  "い。"},
            ctx.def_line)
    outside = [f for f in forwards if not f.get("autocast")]
    if outside:
        # A machine test explains a float32 forward only when no autocast ran enabled at all.
        ran = any(e.get("enabled") for e in trace.of("autocast-enter"))
        switch = None if ran else machine_switch(ctx, outside[0].get("line"))
        if switch is not None:
            return failed(SLUG_FORWARD, _switched_off(switch, outside[0].get("line")), switch.line)
        return failed(SLUG_FORWARD, _why_outside(ctx, outside[0]), outside[0].get("line"))
    losses = [e for e in trace.of("loss") if not e.get("autocast")]
    if losses:
        return failed(SLUG_FORWARD, _loss_outside(ctx, losses[0]), losses[0].get("line"))
    if not trace.of("loss"):
        # The title promises the loss too: say that only the forward passes could be judged
        # (an evaluation that returns an accuracy, or a loss computed without `criterion`).
        ctx.advise({"en": "Your function never called `criterion`, so “The forward pass and the loss run "
                          "under autocast” judged the forward passes only: each one ran under autocast.",
                    "ja": "関数が `criterion` を一度も呼ばなかったため、「順伝播と損失の計算が autocast の中で"
                          "行われる」では順伝播だけを確認しました。どの順伝播も autocast の中で実行されています。"})
    return passed(SLUG_FORWARD)


def machine_switch(ctx: Context, line: int | None) -> Switch | None:
    """The test of the machine that kept autocast off for a line, when the source has one.

    Only on a run where autocast did not cover that line: the grader's device is the CPU (or a
    "cuda" request mapped to it), and a loop that runs AMP only on CUDA runs none here.
    """
    if not ctx.static.switches:
        return None
    around = ctx.static.switch_around(line)
    if around is not None:
        return around
    # `with ctx:` / `with torch.autocast(..., enabled=flag):` away from the switch itself
    return ctx.static.switches[0]


def _switched_off(switch: Switch, line: int | None) -> dict[str, str]:
    return {
        "en": f"AMP is switched off on this machine: `{switch.text}` on line {switch.line} is false when "
              f"`device` is the CPU, so the forward pass on line {line} runs in float32 without autocast. "
              "The grader runs on a CPU, and the prompt asks for autocast there too (bfloat16 on the CPU, "
              "float16 on CUDA): enter torch.autocast(device_type=device.type, dtype=...) whatever the "
              "device.",
        "ja": f"このマシンでは AMP がオフになっています。{switch.line} 行目の `{switch.text}` は `device` が "
              f"CPU のとき偽になるため、{line} 行目の順伝播は autocast なしの float32 で実行されます。"
              "採点は CPU で行われ、問題文は CPU でも autocast を求めています（CPU では bfloat16、CUDA では "
              "float16）。デバイスにかかわらず `torch.autocast(device_type=device.type, dtype=...)` に"
              "入りましょう。"}


def _loss_outside(ctx: Context, loss: dict) -> dict[str, str]:
    line, dtype = loss.get("line"), loss.get("dtype") or "float32"
    if dtype == "float16":
        why_en = ("so the loss itself is float16: backward starts from its gradient, the loss scale "
                  "(65536 at first), which is larger than float16's largest value 65504, so the "
                  "gradients are inf and scaler.step skips those steps")
        why_ja = ("損失そのものが float16 になります。逆伝播は損失の勾配、つまりロススケール（最初は "
                  "65536）から始まり、これは float16 の最大値 65504 を超えるため勾配が inf になり、"
                  "scaler.step はそのステップをスキップします")
    elif dtype == "bfloat16":
        why_en = "so the loss is computed in bfloat16, with 8 bits of precision instead of float32's 24"
        why_ja = "損失が float32（24 ビット）ではなく bfloat16（8 ビット）の精度で計算されます"
    else:
        why_en = f"so it is computed in {dtype} without autocast's choice of precision"
        why_ja = f"autocast による精度の選択なしに {dtype} で計算されます"
    return {
        "en": f"The loss on line {line} is computed after the autocast block, on the {dtype} output of the "
              f"forward pass, {why_en}. Compute the loss inside the block as well: autocast runs losses in "
              "float32.",
        "ja": f"{line} 行目の損失が autocast ブロックの後で、順伝播の {dtype} の出力から計算されているため、"
              f"{why_ja}。損失もブロックの中で計算しましょう。autocast は損失を float32 で計算します。"}


def _why_outside(ctx: Context, forward: dict) -> dict[str, str]:
    line = forward.get("line")
    enters = ctx.trace.of("autocast-enter")
    if not enters:
        return {"en": f"The forward pass on line {line} runs in float32: there is no autocast "
                      "around it, so mixed precision never happens.",
                "ja": f"{line} 行目の順伝播は float32 で実行されています。autocast で囲まれていない"
                      "ため、混合精度になりません。"}
    disabled = [e for e in enters if not e.get("requested", {}).get("enabled", True)]
    if disabled and len(disabled) == len(enters):
        at = disabled[0].get("line")
        return {"en": f"The autocast on line {at} is created with enabled=False, so the forward "
                      f"pass on line {line} runs in float32.",
                "ja": f"{at} 行目の autocast が enabled=False で作られているため、{line} 行目の順伝"
                      "播は float32 で実行されます。"}
    block = ctx.static.autocast_block_of(enters[0].get("line")) or enters[0].get("line")
    return {"en": f"The forward pass on line {line} runs outside the autocast block "
                  f"(line {block}), so it computes in float32.",
            "ja": f"{line} 行目の順伝播が autocast ブロック（{block} 行目）の外で実行されているた"
                  "め、float32 で計算されます。"}


def _advise_deprecated(ctx: Context) -> None:
    old = [e for e in ctx.trace.of("autocast-enter") if e.get("deprecated")]
    if old:
        ctx.advise({"en": f"Line {old[0].get('line')}: torch.cuda.amp.autocast() is deprecated "
                          "since PyTorch 2.4. Write torch.autocast(device_type=\"cuda\") or "
                          "torch.amp.autocast(\"cuda\") instead.",
                    "ja": f"{old[0].get('line')} 行目：`torch.cuda.amp.autocast()` は PyTorch 2.4 か"
                          "ら非推奨です。`torch.autocast(device_type=\"cuda\")` または "
                          "`torch.amp.autocast(\"cuda\")` と書きましょう。"})


@register("backward-outside-autocast", needs=("train",),
          title={"en": "backward() runs outside autocast",
                 "ja": "backward() が autocast の外で実行される"},
          hint={"en": "Dedent the backward call so that it comes after the `with torch.autocast(...)` block.",
                "ja": "backward の呼び出しのインデントを戻し、`with torch.autocast(...)` ブロックの後に置きましょう。"})
def backward_outside_autocast(ctx: Context) -> Finding:
    backwards = ctx.trace.of("backward")
    if not backwards:
        return ctx.stopped(SLUG_BACKWARD) if ctx.trace.raised else skipped(SLUG_BACKWARD, {
            "en": "Not checked: your function never calls backward().",
            "ja": "未確認：関数が `backward()` を一度も呼んでいません。"})
    inside = [b for b in backwards if b.get("autocast")]
    if not inside:
        return passed(SLUG_BACKWARD)
    line = inside[0].get("line")
    enters = ctx.trace.before(inside[0], ctx.trace.of("autocast-enter"))
    enter = [e for e in enters if e.get("enabled")]
    block = ctx.static.autocast_block_of(line) or (enter[-1].get("line") if enter else None)
    where_en = f" that starts on line {block}" if block else ""
    where_ja = f"（{block} 行目から）" if block else ""
    return failed(SLUG_BACKWARD, {
        "en": f"backward() on line {line} runs inside the autocast block{where_en}. Only the "
              "forward pass and the loss belong inside; the backward pass already uses the "
              "precision of the forward operations.",
        "ja": f"{line} 行目の backward() が autocast ブロック{where_ja}の中で実行されています。中に"
              "入れるのは順伝播と損失だけです。逆伝播の精度は、順伝播の各演算に合わせて自動的に決まりま"
              "す。"}, line)


@register("fp32-master-weights",
          title={"en": "The model's weights stay in float32",
                 "ja": "モデルの重みは float32 のまま"},
          hint={"en": "Do not call `.half()` or `.to(torch.float16)` on the model; autocast chooses the precision of "
                      "each operation while the weights stay float32.",
                "ja": "モデルに `.half()` や `.to(torch.float16)` を使わないでください。重みは float32 のまま、"
                      "演算ごとの精度は autocast が選びます。"})
def fp32_master_weights(ctx: Context) -> Finding:
    trace = ctx.trace
    casts = [e for e in trace.of("model-cast") if e.get("after") != ["float32"]]
    if casts:
        cast = casts[0]
        method = cast.get("method") or "to"
        dtype = ", ".join(cast.get("after") or [])
        return failed(SLUG_WEIGHTS, {
            "en": f"model.{method}(...) on line {cast.get('line')} turns the weights into {dtype}. "
                  "Small updates then vanish in rounding and GradScaler cannot unscale float16 "
                  "gradients; keep the model in float32 and let autocast pick each operation's "
                  "precision.",
            "ja": f"{cast.get('line')} 行目の `model.{method}(...)` で重みが {dtype} になっています。"
                  "小さな更新が丸めで消え、GradScaler も float16 の勾配を戻せません。モデルは "
                  "float32 の"
                  "ままにし、演算ごとの精度は autocast に任せましょう。"}, cast.get("line"))
    lowered = [f for f in trace.of("forward") if f.get("param_dtypes", ["float32"]) != ["float32"]]
    if lowered:
        line = ctx.static.first_line("half") or lowered[0].get("line")
        return failed(SLUG_WEIGHTS, {
            "en": f"When the model ran on line {lowered[0].get('line')} its weights were "
                  f"{', '.join(lowered[0]['param_dtypes'])}, not float32.",
            "ja": f"{lowered[0].get('line')} 行目でモデルを実行したとき、重みが float32 ではなく "
                  f"{', '.join(lowered[0]['param_dtypes'])} でした。"}, line)
    return passed(SLUG_WEIGHTS)


@register("bf16-autocast", needs=("bf16",),
          title={"en": "Autocast runs in bfloat16",
                 "ja": "autocast が bfloat16 で動く"},
          hint={"en": "Pass `dtype=torch.bfloat16` to `torch.autocast`.",
                "ja": "`torch.autocast` に `dtype=torch.bfloat16` を渡しましょう。"})
def bf16_autocast(ctx: Context) -> Finding:
    """The amp-bf16 exercise: autocast must actually run in bfloat16."""
    enters = [e for e in ctx.trace.of("autocast-enter") if e.get("enabled")]
    if not enters:
        return ctx.stopped(SLUG_BF16) if ctx.trace.raised else skipped(SLUG_BF16, {
            "en": "Not checked: no autocast block ran (see the autocast check above).",
            "ja": "未確認：autocast ブロックが実行されませんでした（上の autocast のチェックを参"
                  "照）。"})
    wrong = [e for e in enters if (e.get("requested") or {}).get("dtype") != "bfloat16"]
    if not wrong:
        return passed(SLUG_BF16)
    line = wrong[0].get("line")
    asked = (wrong[0].get("requested") or {}).get("dtype")
    if asked is None:
        return failed(SLUG_BF16, {
            "en": f"The autocast on line {line} names no dtype, so on a GPU it runs in float16, "
                  "which needs a GradScaler. Ask for bfloat16 explicitly.",
            "ja": f"{line} 行目の autocast は dtype を指定していないため、GPU では float16 で動き、"
                  "GradScaler が必要になります。bfloat16 を明示しましょう。"}, line)
    return failed(SLUG_BF16, {
        "en": f"The autocast on line {line} runs in {asked}, not bfloat16. bfloat16 keeps "
              "float32's range, which is why this loop can train without a GradScaler.",
        "ja": f"{line} 行目の autocast が bfloat16 ではなく {asked} で動いています。bfloat16 は "
              "float32 と同じ範囲を持つため、このループは GradScaler なしで学習できます。"}, line)
