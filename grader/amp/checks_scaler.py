"""Checks on the GradScaler protocol: scaled backward, step, update, one scaler."""

from __future__ import annotations

from grader.amp.findings import Context, Finding, failed, passed, skipped
from grader.amp.registry import register
from grader.amp.trace import Event, Trace, Window

SLUG_SCALED = "backward-on-scaled-loss"
SLUG_STEP = "step-through-scaler"
SLUG_UPDATE = "update-after-step"
SLUG_ONE = "one-scaler"


def _scaler_in_play(ctx: Context) -> bool:
    return ctx.spec.require_scaler or ctx.trace.uses_scaler()


def switch_note(ctx: Context, line: int | None) -> dict[str, str]:
    """Why a line without the scaler ran: the branch of a machine test that is false on a CPU."""
    switch = ctx.static.switch_around(line)
    if switch is None or ctx.trace.uses_scaler() or any(
            e.get("enabled") for e in ctx.trace.of("autocast-enter")):
        return {"en": "", "ja": ""}
    return {"en": f" This branch runs because `{switch.text}` on line {switch.line} is false on the grader's CPU; "
                  "the prompt asks for the scaler there too.",
            "ja": f" この分岐が実行されたのは、{switch.line} 行目の `{switch.text}` が採点用の CPU では偽になる"
                  "ためです。問題文は CPU でもスケーラーを使うよう求めています。"}


def _with_note(text: dict[str, str], note: dict[str, str]) -> dict[str, str]:
    return {lang: text[lang] + note[lang] for lang in text}


@register("backward-on-scaled-loss", needs=("train",),
          title={"en": "backward() runs on the scaled loss",
                 "ja": "スケールした損失に対して backward() を呼ぶ"},
          hint={"en": "`scaler.scale(loss)` returns the loss multiplied by the current scale: the backward "
                      "pass must run on that, not on the plain loss.",
                "ja": "`scaler.scale(loss)` は現在のスケールを掛けた損失を返します。逆伝播はもとの損失ではなく、"
                      "その戻り値に対して行いましょう。"})
def backward_on_scaled_loss(ctx: Context) -> Finding:
    trace = ctx.trace
    backwards = trace.of("backward")
    if not backwards:
        if trace.raised:
            return ctx.stopped(SLUG_SCALED)
        return failed(SLUG_SCALED, {
            "en": "Your loop never calls backward(), so no gradients are computed and the weights "
                  "never change.",
            "ja": "ループで backward() が一度も呼ばれていないため、勾配が計算されず重みも変わりま"
                  "せん。"},
            ctx.static.main_loop(ctx.spec.entry) or ctx.def_line)
    if not (_scaler_in_play(ctx) or trace.fp16_autocast()):
        return passed(SLUG_SCALED)  # BF16 without a scaler: backward on the plain loss is right
    unscaled = [b for b in backwards if b.get("scaled_by") is None]
    if not unscaled:
        return passed(SLUG_SCALED)
    first = unscaled[0]
    line = first.get("line")
    if not _scaler_in_play(ctx):
        return failed(SLUG_SCALED, {
            "en": f"backward() on line {line} runs on an unscaled float16 loss: small gradients "
                  "underflow to zero in float16. Use bfloat16 autocast here, or scale the loss "
                  "with a GradScaler.",
            "ja": f"{line} 行目の backward() がスケールしていない float16 の損失に対して呼ばれてい"
                  "ます。小さな勾配は float16 では 0 になってしまいます。ここでは bfloat16 の "
                  "autocast を使うか、GradScaler で損失をスケールしましょう。"}, line)
    iteration = trace.iteration_of(first)
    scaled_but_unused = [e for e in (iteration.events if iteration else [])
                         if e["kind"] == "scale" and e["seq"] < first["seq"]]
    if scaled_but_unused:
        at = scaled_but_unused[-1].get("line")
        return failed(SLUG_SCALED, {
            "en": f"scaler.scale(loss) on line {at} makes a scaled loss, but backward() on line "
                  f"{line} runs on the unscaled one. Call backward on what scale() returns.",
            "ja": f"{at} 行目の `scaler.scale(loss)` でスケールした損失を作っていますが、{line} 行目"
                  "の `backward()` はスケールしていない損失に対して呼ばれています。`scale()` の戻り値"
                  "に対して backward を呼びましょう。"}, line)
    return failed(SLUG_SCALED, _with_note({
        "en": f"backward() on line {line} runs on the unscaled loss. In float16 small gradients "
              "underflow to zero, and scaler.step() then divides gradients that were never "
              "multiplied.",
        "ja": f"{line} 行目の backward() がスケールしていない損失に対して呼ばれています。float16 で"
              "は小さな勾配が 0 になり、scaler.step() は掛けられていない勾配を割ってしまいま"
              "す。"}, switch_note(ctx, line)), line)


@register("step-through-scaler", needs=("scaler",),
          title={"en": "The optimizer steps once per batch through the scaler",
                 "ja": "オプティマイザはバッチごとに 1 回、スケーラー経由でステップする"},
          # Said of every loop, the starter's included (which has no step at all): no "replace".
          hint={"en": "Step the optimizer through the scaler, `scaler.step(optimizer)`, once per batch after the "
                      "backward pass, never with a direct `optimizer.step()`.",
                "ja": "バッチごとに 1 回、backward の後に `scaler.step(optimizer)` でスケーラー経由で"
                      "ステップしましょう。`optimizer.step()` を直接呼ばないでください。"})
def step_through_scaler(ctx: Context) -> Finding:
    trace = ctx.trace
    if not trace.of("scaler-step", "optimizer-step"):
        if trace.raised:
            return ctx.stopped(SLUG_STEP)
        call = "scaler.step(optimizer)" if _scaler_in_play(ctx) else "optimizer.step()"
        return failed(SLUG_STEP, {
            "en": f"The optimizer never steps, so the weights never change. Call {call} after the "
                  "backward pass.",
            "ja": f"オプティマイザが一度もステップしないため、重みが変わりません。backward の後に `{call}` "
                  "を呼びましょう。"},
            ctx.static.main_loop(ctx.spec.entry) or ctx.def_line)
    if not _scaler_in_play(ctx):
        return passed(SLUG_STEP)
    for iteration in trace.iterations:
        direct = [e for e in iteration.of("optimizer-step") if not e.get("via_scaler")]
        steps = iteration.of("scaler-step")
        if direct and steps:
            return failed(SLUG_STEP, {
                "en": f"The optimizer steps twice in iteration {iteration.index + 1}: "
                      f"scaler.step(optimizer) on line {steps[0].get('line')} and optimizer.step() "
                      f"on line {direct[0].get('line')}. Keep only scaler.step(optimizer).",
                "ja": f"{iteration.index + 1} 回目のイテレーションでオプティマイザが 2 回ステップして"
                      f"います（{steps[0].get('line')} 行目の `scaler.step(optimizer)` "
                      f"と {direct[0].get('line')} 行目の `optimizer.step()`）。"
                      "`scaler.step(optimizer)` "
                      "だけにしましょう。"}, direct[0].get("line"))
        if direct:
            line = direct[0].get("line")
            if any(b.get("scaled_by") is not None for b in trace.of("backward")):
                text = {"en": f"optimizer.step() on line {line} bypasses the GradScaler: the gradients are "
                              "still multiplied by the loss scale and steps with inf/NaN gradients are not "
                              "skipped.",
                        "ja": f"{line} 行目の `optimizer.step()` は GradScaler を通っていません。勾配にはロス"
                              "スケールが掛かったままで、inf/NaN の勾配によるステップもスキップされませ"
                              "ん。"}
            else:  # nothing was scaled: the gradients are at their true size, only the scaler's guard is missing
                text = {"en": f"optimizer.step() on line {line} bypasses the GradScaler: steps with inf/NaN "
                              "gradients are not skipped, and the loss scale that keeps float16 gradients from "
                              "underflowing never comes into play.",
                        "ja": f"{line} 行目の `optimizer.step()` は GradScaler を通っていません。inf/NaN の勾配に"
                              "よるステップはスキップされず、float16 の勾配のアンダーフローを防ぐロススケールも"
                              "使われません。"}
            return failed(SLUG_STEP, _with_note(text, switch_note(ctx, line)), line)
        if len(steps) > 1:
            return failed(SLUG_STEP, {
                "en": f"scaler.step(optimizer) runs {len(steps)} times in iteration "
                      f"{iteration.index + 1} (line {steps[1].get('line')}); step once per batch.",
                "ja": f"{iteration.index + 1} 回目のイテレーションで `scaler.step(optimizer)` "
                      f"が {len(steps)} 回実行されています（{steps[1].get('line')} 行目）。ステップは"
                      "バッチ"
                      "ごとに 1 回です。"}, steps[1].get("line"))
    if ctx.spec.accumulate == 1:
        windows = ctx.windows_done
        for position, window in enumerate(windows):
            # A batch skipped outright is trains-every-batch's finding, not a missing step.
            if window.of("backward") and not window.of("scaler-step"):
                accumulated = _accumulation(windows[position:])
                if accumulated is not None:
                    return accumulated
                line = window.iterations[0].line
                return failed(SLUG_STEP, {
                    "en": f"Iteration {window.index + 1} (the loop on line {line}) never steps the "
                          "optimizer; every batch needs scaler.step(optimizer).",
                    "ja": f"{window.index + 1} 回目のイテレーション（{line} 行目のループ）で "
                          "オプティマイザがステップしていません。毎バッチ `scaler.step(optimizer)` が"
                          "必要です。"}, line)
    return passed(SLUG_STEP)


def _accumulation(windows: list[Window]) -> Finding | None:
    """Gradients of several batches added up before one step, where each batch should step.

    `windows` starts at a batch that did not step; when the gradients it left are still there
    at the next batch's backward and a later batch steps, the loop accumulates gradients: say
    so, at the step that runs only every n batches.
    """
    for count, window in enumerate(windows[1:], start=2):
        backwards = window.of("backward")
        if not backwards or backwards[0].get("grads_clean"):
            return None  # the gradients were cleared (or never added to): no accumulation
        steps = window.of("scaler-step")
        if steps:
            line, first = steps[0].get("line"), windows[0].index + 1
            return failed(SLUG_STEP, {
                "en": f"scaler.step(optimizer) on line {line} runs once for {count} batches: the gradients of "
                      f"batches {first}-{first + count - 1} are added up before one step (gradient accumulation), "
                      "but this exercise asks for one step per batch.",
                "ja": f"{line} 行目の `scaler.step(optimizer)` は {count} バッチに 1 回しか実行されません。バッチ "
                      f"{first}〜{first + count - 1} の勾配を足し合わせてから 1 回ステップしています（勾配累積）が、"
                      "この演習ではバッチごとに 1 回ステップします。"}, line)
    return None


@register("update-after-step", needs=("scaler",),
          title={"en": "scaler.update() runs once per step, after scaler.step()",
                 "ja": "`scaler.update()` はステップごとに 1 回、`scaler.step()` の後に呼ぶ"},
          hint={"en": "Call `scaler.update()` inside the loop, right after `scaler.step(optimizer)`.",
                "ja": "ループの中で `scaler.step(optimizer)` の直後に `scaler.update()` を呼びましょう。"})
def update_after_step(ctx: Context) -> Finding:
    """Steps and updates must alternate: step, update, step, update (once per optimizer step)."""
    trace = ctx.trace
    if not _scaler_in_play(ctx):
        return passed(SLUG_UPDATE)
    # A direct optimizer.step() that replaces scaler.step counts as the step here: bypassing the
    # scaler is the step check's finding, and an update after it is in the right place. One that
    # comes on top of scaler.step in the same batch (a double step) is no step of the scaler's:
    # the update belongs after scaler.step, wherever the extra step sits.
    sequence = [e for e in trace.of("scaler-step", "scaler-update", "optimizer-step")
                if e["kind"] != "optimizer-step" or not (e.get("via_scaler") or _beside_scaler_step(trace, e))]
    if not trace.of("scaler-step"):
        # No scaler.step anywhere: one mistake, named by the step check at its line, and the
        # update comes with its fix; judging an update against a step that bypasses the scaler
        # would fail the same missing call twice (docs/grading.md, "update-after-step").
        if trace.raised:
            return ctx.stopped(SLUG_UPDATE)
        return skipped(SLUG_UPDATE, {
            "en": "Not checked: the optimizer never steps through the scaler, so there is no scaler step "
                  "for an update to follow (see the step check).",
            "ja": "未確認：オプティマイザがスケーラー経由で一度もステップしていないため、`scaler.update()` が"
                  "続くべきステップがありません（ステップのチェックを参照）。"})
    previous = None
    for event in sequence:
        if event["kind"] == "scaler-update" and previous is None:
            following = trace.after(event, trace.of("scaler-step"))
            at = following[0].get("line") if following else None
            return failed(SLUG_UPDATE, {
                "en": f"scaler.update() on line {event.get('line')} runs before "
                      f"scaler.step(optimizer){f' on line {at}' if at else ''}; update() sets the "
                      "next scale from what step() found, so swap them.",
                "ja": f"{event.get('line')} 行目の `scaler.update()` が `scaler.step(optimizer)`"
                      f"{f'（{at} 行目）' if at else ''}より前にあります。`update()` は `step()` の結果"
                      "から次のスケールを決めるので、順番を入れ替えましょう。"}, event.get("line"))
        if event["kind"] == "scaler-update" and previous["kind"] == "scaler-update":
            return failed(SLUG_UPDATE, {
                "en": f"scaler.update() on line {event.get('line')} runs a second time for one "
                      "step; call it once, right after scaler.step().",
                "ja": f"{event.get('line')} 行目の `scaler.update()` が 1 回のステップに対して 2 回目の"
                      "実行になっています。`scaler.step()` の直後に 1 回だけ呼びましょう。"},
                event.get("line"))
        if event["kind"] != "scaler-update" and previous is not None \
                and previous["kind"] != "scaler-update" \
                and trace.iteration_of(event) is not trace.iteration_of(previous):
            # (two steps within one batch are the step check's finding)
            return _missing_update(ctx, previous)
        previous = event
    if previous is not None and previous["kind"] != "scaler-update" and not trace.raised:
        return _missing_update(ctx, previous)
    return passed(SLUG_UPDATE)


def _beside_scaler_step(trace: Trace, event: Event) -> bool:
    iteration = trace.iteration_of(event)
    return iteration is not None and bool(iteration.of("scaler-step"))


def _missing_update(ctx: Context, step: Event) -> Finding:
    step_line = step.get("line")
    call = "scaler.step(optimizer)" if step["kind"] == "scaler-step" else "optimizer.step()"
    outside = ctx.static.find("update", in_loop=False, function=ctx.spec.entry)
    if outside:
        line = outside[0].line
        return failed(SLUG_UPDATE, {
            "en": f"scaler.update() on line {line} runs once, after the loop. The scale must be "
                  "updated after every scaler.step(optimizer), inside the loop.",
            "ja": f"{line} 行目の `scaler.update()` はループの後に 1 回だけ実行されます。スケールは毎"
                  "回の `scaler.step(optimizer)` の後に、ループの中で更新する必要がありま"
                  "す。"}, line)
    return failed(SLUG_UPDATE, {
        "en": f"scaler.update() never follows {call} on line {step_line}, so the "
              "loss scale never adapts.",
        "ja": f"{step_line} 行目の `{call}` の後に `scaler.update()` がないため、"
              "ロススケールが調整されません。"}, step_line)


@register("one-scaler", needs=("scaler",), advises=True,
          title={"en": "One GradScaler, the one passed in",
                 "ja": "GradScaler は 1 つだけ（引数で渡されたもの）"},
          hint={"en": "Use the `scaler` argument; do not create a GradScaler inside the function.",
                "ja": "引数の `scaler` を使い、関数の中で GradScaler を作らないでください。"})
def one_scaler(ctx: Context) -> Finding:
    trace = ctx.trace
    inits = trace.of("scaler-init")
    for init in inits:
        if init.get("deprecated"):
            ctx.advise({"en": f"Line {init.get('line')}: torch.cuda.amp.GradScaler() is deprecated "
                              "since PyTorch 2.4; write torch.amp.GradScaler(\"cuda\").",
                        "ja": f"{init.get('line')} 行目：`torch.cuda.amp.GradScaler()` は PyTorch "
                              "2.4 から非推奨です。`torch.amp.GradScaler(\"cuda\")` と書きましょ"
                              "う。"})
            break
    if inits:
        line = inits[0].get("line")
        in_loop = ctx.static.loop_of(line) is not None
        if len(inits) > 1 or in_loop:
            return failed(SLUG_ONE, {
                "en": f"A new GradScaler is created on line {line} in every iteration, so the loss "
                      "scale restarts at 65536 each time and never adapts.",
                "ja": f"{line} 行目で毎イテレーション新しい GradScaler が作られるため、ロススケール"
                      "が毎回 65536 から始まり、調整されません。"}, line)
        return failed(SLUG_ONE, {
            "en": f"train_one_epoch creates its own GradScaler on line {line}. Use the scaler "
                  "passed in: it carries the loss scale from one epoch to the next.",
            "ja": f"{line} 行目で関数が独自の GradScaler を作っています。引数で渡された `scaler` を使"
                  "いましょう。ロススケールはエポックをまたいで引き継がれます。"}, line)
    provided = trace.provided.get("scaler")
    foreign = [e for e in trace.of("scale", "scaler-step", "scaler-update", "unscale")
               if provided is not None and e.get("scaler") != provided]
    if foreign:
        line = foreign[0].get("line")
        return failed(SLUG_ONE, {
            "en": f"Line {line} uses a GradScaler that is not the `scaler` argument (one made "
                  "outside the function). Use the scaler passed in.",
            "ja": f"{line} 行目で引数の `scaler` ではない GradScaler（関数の外で作ったもの）を使っ"
                  "ています。渡された `scaler` を使いましょう。"}, line)
    return passed(SLUG_ONE)

