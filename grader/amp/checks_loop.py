"""Checks on the loop around AMP: zero_grad cadence, batches trained, the mean, accumulation."""

from __future__ import annotations

import math
import sys

from grader.amp.findings import Context, Finding, failed, passed, skipped
from grader.amp.registry import register
from grader.amp.static import Division
from grader.amp.trace import Event, Window

SLUG_ZERO = "zero-grad-each-iteration"
SLUG_MEAN = "mean-loss-returned"
SLUG_EVERY = "trains-every-batch"
SLUG_ACCUM = "accumulation-window"


def _step_events(window: Window) -> list[Event]:
    return window.of("scaler-step") or window.of("optimizer-step")


@register("zero-grad-each-iteration", needs=("train",),
          title={"en": "Gradients are cleared once per iteration",
                 "ja": "勾配はイテレーションごとに 1 回クリアされる"},
          hint={"en": "Call `optimizer.zero_grad()` at the start of each iteration, before the backward pass.",
                "ja": "各イテレーションの最初（backward の前）に `optimizer.zero_grad()` を呼びましょう。"})
def zero_grad_each_iteration(ctx: Context) -> Finding:
    trace = ctx.trace
    if not trace.of("backward"):
        return ctx.stopped(SLUG_ZERO) if trace.raised else skipped(SLUG_ZERO, {
            "en": "Not checked: your function never calls backward().",
            "ja": "未確認：関数が `backward()` を一度も呼んでいません。"})
    previous: Window | None = None
    for window in trace.windows:
        backwards, steps = window.of("backward"), _step_events(window)
        if backwards and steps:
            between = [z for z in window.of("zero-grad")
                       if backwards[-1]["seq"] < z["seq"] < steps[0]["seq"]]
            if between:
                line = between[0].get("line")
                return failed(SLUG_ZERO, {
                    "en": f"zero_grad() on line {line} runs between backward() (line "
                          f"{backwards[-1].get('line')}) and the optimizer step (line "
                          f"{steps[0].get('line')}): it wipes the gradients before they are used.",
                    "ja": f"{line} 行目の `zero_grad()` が `backward()`（{backwards[-1].get('line')} 行"
                          f"目）とステップ（{steps[0].get('line')} 行目）の間で実行され、使われる前に"
                          "勾配をクリアしています。"}, line)
        # Stale gradients are this check's mistake only when the previous window did step:
        # a loop that skips steps keeps its gradients on purpose (the step check says so).
        stepped_before = previous is None or _ends_with_step(previous)
        previous = window
        for position, backward in enumerate(backwards):
            if position == 0 and not backward.get("grads_clean") and stepped_before:
                return _stale_gradients(ctx, backward, window.index)
            stepped_inside = any(e["seq"] < backward["seq"] for e in steps)
            if (position > 0 and backward.get("grads_clean") and ctx.spec.accumulate > 1
                    and not stepped_inside):  # a step mid-window is accumulation-window's finding
                zero = [z for z in window.of("zero-grad") if z["seq"] < backward["seq"]]
                line = zero[-1].get("line") if zero else backward.get("line")
                return failed(SLUG_ZERO, {
                    "en": f"zero_grad() on line {line} runs on every micro-batch, so the gradients "
                          "never add up; clear them only after each optimizer step.",
                    "ja": f"{line} 行目の `zero_grad()` がマイクロバッチごとに実行されるため、勾配が"
                          "累積されません。勾配のクリアは各ステップの後だけにしましょう。"}, line)
    return passed(SLUG_ZERO)


def _ends_with_step(window: Window) -> bool:
    """The window's gradients were all used by a step (no backward after its last step)."""
    steps = _step_events(window)
    return bool(steps) and not [b for b in window.of("backward") if b["seq"] > steps[-1]["seq"]]


def _stale_gradients(ctx: Context, backward: Event, window: int) -> Finding:
    line = backward.get("line")
    zeros = ctx.trace.of("zero-grad")
    if zeros and all(z["seq"] < ctx.trace.of("batch")[0]["seq"] for z in zeros):
        at = zeros[0].get("line")
        return failed(SLUG_ZERO, {
            "en": f"zero_grad() on line {at} runs once, before the loop; from the second batch on, "
                  f"backward() on line {line} adds to the previous batch's gradients. Move it into "
                  "the loop.",
            "ja": f"{at} 行目の zero_grad() はループの前に 1 回だけ実行されます。2 バッチ目以降、"
                  f"{line} 行目の backward() が前のバッチの勾配に足し込んでしまいます。ループの中に"
                  "移しましょう。"}, at)
    what_en = ("never clears the gradients" if not zeros
               else "does not clear the gradients every time")
    what_ja = "勾配を一度もクリアしていない" if not zeros else "勾配を毎回はクリアしていない"
    return failed(SLUG_ZERO, {
        "en": f"Your loop {what_en}: in step {window + 1}, backward() on line {line} adds to the "
              "gradients left over from the previous batch.",
        "ja": f"ループが{what_ja}ため、{window + 1} 回目のステップで {line} 行目の `backward()` が前の"
              "バッチの勾配に足し込んでいます。"}, line)


def _is_tensor(value: object) -> bool:
    # torch is looked up, not imported: a tensor exists only where torch is loaded (the
    # harness), and the web app reads these checks' titles without loading torch.
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _as_number(value: object) -> float | None:
    if _is_tensor(value) and value.numel() == 1:  # type: ignore[attr-defined]
        return float(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


@register("mean-loss-returned", advises=True,
          title={"en": "Returns the mean loss over the batches",
                 "ja": "バッチ全体の平均損失を返す"},
          hint={"en": "Add up `loss.item()` for every batch and divide by the number of batches.",
                "ja": "各バッチの `loss.item()` を合計し、バッチ数で割りましょう。"})
def mean_loss_returned(ctx: Context) -> Finding:
    trace = ctx.trace
    if trace.raised:
        return ctx.stopped(SLUG_MEAN)
    line = ctx.return_line
    value = _as_number(trace.returned)
    if value is None:
        kind = "None" if trace.returned_type == "NoneType" else trace.returned_type
        return failed(SLUG_MEAN, {
            "en": f"{ctx.spec.entry} returned {kind}, not the mean loss as a float.",
            "ja": f"{ctx.spec.entry} の戻り値が平均損失（float）ではなく {kind} です。"}, line)
    if _is_tensor(trace.returned):
        # The prompt asks for a float: a tensor is a different value to whoever logs or compares
        # it, and one built from `loss` (not loss.item()) keeps every batch's graph alive.
        graph_en = (" It was built from `loss`, not `loss.item()`, so it still holds the autograd graph "
                    "of every batch and their memory is never freed.") if trace.returned_graph else ""
        graph_ja = ("`loss.item()` ではなく `loss` から作ったため、全バッチの計算グラフを保持したままで"
                    "メモリが解放されません。") if trace.returned_graph else ""
        return failed(SLUG_MEAN, {
            "en": f"{ctx.spec.entry} returned a tensor, not the mean loss as a Python float.{graph_en}",
            "ja": f"{ctx.spec.entry} の戻り値が Python の float ではなくテンソルです。{graph_ja}"}, line,
            hint={"en": "Add up `loss.item()` (a float) for every batch and return the sum divided by "
                        "the number of batches.",
                  "ja": "各バッチの `loss.item()`（float）を合計し、バッチ数で割った値を返しましょう。"})
    losses = [its[-1].get("value") for its in (it.of("loss") for it in trace.iterations) if its]
    # Skipped batches have no loss; they are trains-every-batch's finding, not this one's.
    if losses and None not in losses:
        expected = sum(losses) / len(losses)
    elif ctx.reference is not None and _as_number(ctx.reference.get("returned")) is not None:
        expected = _as_number(ctx.reference.get("returned"))
        losses = []
    else:
        return skipped(SLUG_MEAN, {"en": "Not checked: the losses could not be observed.",
                                   "ja": "未確認：損失を観測できませんでした。"})
    if math.isclose(value, expected, rel_tol=1e-3, abs_tol=1e-4):
        return passed(SLUG_MEAN)
    message = _describe_wrong_mean(value, expected, losses, ctx.spec.accumulate, line)
    if message is not None and losses and ctx.spec.accumulate > 1 \
            and math.isclose(value, expected / ctx.spec.accumulate, rel_tol=1e-3, abs_tol=1e-4):
        # The sum was made of the divided losses: the line that adds them up is the one to change.
        adds = ctx.static.find("item", in_loop=True, function=ctx.spec.entry)
        line = adds[0].line if adds else line
    division = ctx.static.divisions.get(ctx.spec.entry)
    divided = _wrong_count(value, losses)
    if message is None and division is not None:
        # The mean is made by a division: point at the line that divides, and say by what (and,
        # when the returned value shows it, by how many: `/ i` is 5 for 6 batches).
        text = (_describe_wrong_count(value, divided, len(losses), division) if divided is not None
                else _describe_wrong_division(value, expected, len(losses), division))
        return failed(SLUG_MEAN, text, division.line)
    return failed(SLUG_MEAN, message or _plain_wrong_mean(value, expected, line), line)


def _wrong_count(value: float, losses: list) -> int | None:
    """The whole number the sum of the batch losses was divided by, when it was not their count."""
    if not losses or not value or len(losses) < 2:
        return None
    count = sum(losses) / value
    nearest = round(count)
    if nearest >= 1 and nearest != len(losses) and math.isclose(count, nearest, rel_tol=1e-3, abs_tol=1e-3):
        return nearest
    return None


def _describe_wrong_count(value: float, count: int, batches: int, division: Division) -> dict[str, str]:
    return {
        "en": f"train_one_epoch returned {value:.4f}: the sum of the {batches} batch losses divided by {count} "
              f"(`{division.divisor}` on line {division.line}), not by the number of batches, {batches}.",
        "ja": f"train_one_epoch の戻り値は {value:.4f} で、{batches} バッチの損失の合計を {count} で割った値です"
              f"（{division.line} 行目の `{division.divisor}`）。バッチ数の {batches} で割りましょう。"}


def _describe_wrong_division(value: float, expected: float, batches: int, division: Division) -> dict[str, str]:
    over_en = f"the {batches} batch losses" if batches else "the batch losses"
    over_ja = f"{batches} バッチの損失" if batches else "バッチ損失"
    return {
        "en": f"train_one_epoch returned {value:.4f}, divided by `{division.divisor}` on line {division.line}, "
              f"but the mean of {over_en} is {expected:.4f}: add up each batch's loss.item() and divide "
              "by the number of batches.",
        "ja": f"train_one_epoch の戻り値は {division.line} 行目で `{division.divisor}` で割った {value:.4f} ですが、"
              f"{over_ja}の平均は {expected:.4f} です。各バッチの `loss.item()` を合計し、バッチ数で割りましょう。"}


def _plain_wrong_mean(value: float, expected: float, line: int | None) -> dict[str, str]:
    at_en, at_ja = (f" on line {line}", f"{line} 行目の") if line else ("", "")
    return {"en": f"train_one_epoch returned {value:.4f}{at_en}, but the mean of the batch losses is {expected:.4f}.",
            "ja": f"{at_ja}戻り値は {value:.4f} ですが、バッチ損失の平均は {expected:.4f} です。"}


def _describe_wrong_mean(value: float, expected: float, losses: list, k: int,
                         line: int | None) -> dict[str, str] | None:
    """What a wrong mean is, when it is a known slip (the last loss, the sum, the mean over k); else None."""
    def near(x: float) -> bool:
        return math.isclose(value, x, rel_tol=1e-3, abs_tol=1e-4)

    at_en, at_ja = (f" on line {line}", f"{line} 行目の") if line else ("", "")
    base_en = (f"train_one_epoch returned {value:.4f}{at_en}, but the mean of the batch losses "
               f"is {expected:.4f}")
    base_ja = f"{at_ja}戻り値は {value:.4f} ですが、バッチ損失の平均は {expected:.4f} です"
    if losses and near(losses[-1]):
        return {"en": base_en + ": that is the last batch's loss alone.",
                "ja": base_ja + "。これは最後のバッチの損失だけです。"}
    if losses and near(sum(losses)):
        return {"en": base_en + ": that is the sum; divide it by the number of batches.",
                "ja": base_ja + "。これは合計です。バッチ数で割りましょう。"}
    if losses and k > 1 and near(expected / k):
        return {"en": base_en + f": that is the mean of the losses divided by {k}; add up the "
                                "undivided loss.item().",
                "ja": base_ja + f"。これは {k} で割った損失の平均です。割る前の `loss.item()` を合計"
                                "しましょう。"}
    return None


@register("trains-every-batch", needs=("train",),
          title={"en": "Trains on every batch of the loader",
                 "ja": "ローダーのすべてのバッチで学習する"},
          hint={"en": "Loop over the whole loader: `for inputs, targets in loader:` with no `break` or `continue`.",
                "ja": "`for inputs, targets in loader:` でローダー全体を回し、"
                      "`break` や `continue` でバッチをスキップしないでください。"})
def trains_every_batch(ctx: Context) -> Finding:
    trace = ctx.trace
    if trace.raised:
        return ctx.stopped(SLUG_EVERY)
    loop = ctx.static.main_loop(ctx.spec.entry) or ctx.def_line
    iterations = trace.iterations
    if len(iterations) < trace.batches:
        return failed(SLUG_EVERY, {
            "en": f"Your loop stopped after {len(iterations)} of the {trace.batches} batches.",
            "ja": f"ループが {trace.batches} バッチ中 {len(iterations)} バッチで止まっていま"
                  "す。"}, loop)
    idle = [it for it in iterations if not it.of("forward")]
    if idle:
        return failed(SLUG_EVERY, {
            "en": f"Batch {idle[0].index + 1} of {trace.batches} was fetched but not trained on "
                  f"(the loop on line {idle[0].line} skips it).",
            "ja": f"{trace.batches} バッチ中 {idle[0].index + 1} 番目のバッチが取り出されたのに学習"
                  f"に使われていません（{idle[0].line} 行目のループがスキップしています）"
                  "。"}, idle[0].line)
    return passed(SLUG_EVERY)


@register("accumulation-window", needs=("accumulate",),
          title={"en": "Steps once every k micro-batches, with the loss divided by k",
                 "ja": "k 個のマイクロバッチごとに 1 回ステップし、損失を k で割る"},
          hint={"en": "Every batch contributes a backward pass of its loss divided by `accum_steps`; the step, "
                      "the update and clearing the gradients happen only once the window is full.",
                "ja": "毎バッチ、`accum_steps` で割った損失で逆伝播します。ステップ・スケールの更新・勾配のクリアは、"
                      "ウィンドウがいっぱいになったときだけ行いましょう。"})
def accumulation_window(ctx: Context) -> Finding:
    k, trace = ctx.spec.accumulate, ctx.trace
    for window in ctx.windows_done:
        steps = _step_events(window)
        early = [s for s in steps if trace.iteration_of(s) is not window.iterations[-1]]
        if early or len(steps) != 1:
            line = (early or steps or [{"line": window.iterations[-1].line}])[0].get("line")
            return failed(SLUG_ACCUM, {
                "en": f"Batches {window.index * k + 1}-{window.index * k + k} should make one "
                      f"optimizer step, after batch {window.index * k + k}, but made {len(steps)}"
                      + (f" (line {line})." if line else "."),
                "ja": f"バッチ {window.index * k + 1}〜{window.index * k + k} では {k} 個目の後に "
                      f"1 回だけステップするはずが、{len(steps)} 回ステップしています"
                      + (f"（{line} 行目）。" if line else "。")}, line)
    # The last, partial window (batches not a multiple of k) may divide by its own size r, as
    # timm's train.py does, or by k, as most loops do: both make its backward a mean or a part of one.
    rest = ctx.spec.partial_window
    partial_from = trace.batches - rest if rest else len(trace.iterations)
    for iteration in trace.iterations:
        scales, losses = iteration.of("scale"), iteration.of("loss")
        backwards = iteration.of("backward")
        # Without a GradScaler in the scenario the backward runs on loss / k itself (factor 1);
        # with one, an unscaled backward is backward-on-scaled-loss's finding, not this one's.
        factors = [s.get("factor") for s in scales] or ([] if ctx.spec.require_scaler else [1.0])
        if not (factors and losses and backwards) or None in (
                factors[0], losses[-1].get("value"), backwards[0].get("value")):
            continue
        # What backward ran on, over scale x loss: 1/k whether the loss was divided before
        # scaling or the scaled loss afterwards (both are right).
        ratio = backwards[0]["value"] / (factors[0] * losses[-1]["value"] or 1.0)
        allowed = (1 / k, 1 / rest) if iteration.index >= partial_from else (1 / k,)
        if not any(math.isclose(ratio, share, rel_tol=2e-2) for share in allowed):
            line = backwards[0].get("line")
            return failed(SLUG_ACCUM, {
                "en": f"backward() on line {line} runs on {ratio:.3g} times the batch's loss; "
                      f"divide it by accum_steps ({k}) so the accumulated gradient is a mean, not "
                      "a sum.",
                "ja": f"{line} 行目の backward() はバッチ損失の {ratio:.3g} 倍に対して実行されてい"
                      f"ます。accum_steps（{k}）で割り、累積した勾配が和ではなく平均になるようにし"
                      "ましょう。"}, line)
    if not ctx.windows_done and trace.raised:
        return ctx.stopped(SLUG_ACCUM)
    return passed(SLUG_ACCUM)
