"""Maps torch's errors for AMP protocol mistakes to the mistake that caused them (never echoed)."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from grader.amp.static import StaticInfo
from grader.amp.trace import Event, Trace

Text = dict[str, str]


@dataclass(frozen=True)
class Crash:
    """A learner exception explained: which check it belongs to, what went wrong, where."""

    slug: str
    message: Text
    line: int | None


def _last(events: list[Event], *kinds: str) -> Event | None:
    found = [e for e in events if e["kind"] in kinds]
    return found[-1] if found else None


def _line(event: Event | None, fallback: int | None) -> int | None:
    return event.get("line") if event and event.get("line") else fallback


def classify(trace: Trace, static: StaticInfo) -> Crash | None:
    """The mistake behind the learner's exception, or None when it is not an AMP protocol error."""
    error = trace.error
    if not error:
        return None
    message, where = str(error.get("message", "")), error.get("line")
    events = trace.events
    for needle, explain in _RULES:
        if needle in message:
            return explain(trace, static, events, where)
    if error.get("type") == "TypeError" and "autocast" in message:
        return _autocast_arguments(message, where)

    casts = [e for e in events if e["kind"] == "model-cast" and e.get("after") != ["float32"]]
    if casts and ("dtype" in message or "Half" in message or "BFloat16" in message):
        # e.g. "mat1 and mat2 must have the same dtype" after model.half() outside autocast
        return _fp16_grads(trace, static, events, where)
    return None


def _scale_is_none(trace: Trace, static: StaticInfo, events: list[Event],
                   where: int | None) -> Crash:
    backward = _last(events, "backward")
    line = _line(backward, where)
    if backward is None:
        text = {"en": f"scaler.step(optimizer) on line {where} ran before any scaled backward "
                      "pass: there are no scaled gradients to unscale.",
                "ja": f"{where} 行目の `scaler.step(optimizer)` が、スケールした損失の backward より"
                      "前に実行されました。戻すべきスケール済みの勾配がありません。"}
    else:
        text = {"en": f"backward() on line {line} runs on the unscaled loss, so the scaler call on "
                      f"line {where} has no loss scale to undo.",
                "ja": f"{line} 行目の `backward()` がスケールしていない損失に対して呼ばれているため、"
                      f"{where} 行目のスケーラーの呼び出しが戻すべきスケールがありません。"}
    return Crash("backward-on-scaled-loss", text, line)


def _no_inf_before_update(trace: Trace, static: StaticInfo, events: list[Event],
                          where: int | None) -> Crash:
    direct = [e for e in events if e["kind"] == "optimizer-step" and not e.get("via_scaler")]
    if direct:
        line = _line(direct[-1], where)
        return Crash("step-through-scaler", {
            "en": f"optimizer.step() on line {line} bypasses the GradScaler: the gradients are "
                  f"still multiplied by the loss scale, and scaler.update() on line {where} then "
                  "finds no step to account for.",
            "ja": f"{line} 行目の `optimizer.step()` は GradScaler を通っていません。勾配はロススケー"
                  f"ルが掛かったままで、{where} 行目の `scaler.update()` は対応するステップを見つけられ"
                  "ません。"},
            line)
    step_line = static.first_line("step", in_loop=True)
    return Crash("update-after-step", {
        "en": f"scaler.update() on line {where} runs before scaler.step(optimizer)"
              + (f" on line {step_line}" if step_line else "")
              + ": update() adjusts the scale from what step() found, so it must come after it.",
        "ja": f"{where} 行目の `scaler.update()` が `scaler.step(optimizer)`"
              + (f"（{step_line} 行目）" if step_line else " ")  # no space after a full-width bracket
              + "より前に実行されています。`update()` は `step()` の結果からスケールを調整するため、"
                "`step()` の後に呼ぶ必要があります。"}, where)


def _stepped_twice(trace: Trace, static: StaticInfo, events: list[Event],
                   where: int | None) -> Crash:
    steps = [e for e in events if e["kind"] == "scaler-step"]
    batches_between = len(steps) >= 2 and any(
        e["kind"] == "batch" and steps[-2]["seq"] < e["seq"] < steps[-1]["seq"] for e in events)
    if len(steps) >= 2 and not batches_between:
        first, second = _line(steps[-2], where), _line(steps[-1], where)
        return Crash("step-through-scaler", {
            "en": f"scaler.step(optimizer) runs twice in one iteration (lines {first} "
                  f"and {second}); the optimizer must step once per batch.",
            "ja": f"1 回のイテレーションで `scaler.step(optimizer)` が 2 回実行されています"
                  f"（{first} 行目と {second} 行目）。ステップはバッチごとに 1 回です。"}, second)
    outside = static.find("update", in_loop=False)
    if outside:
        line = outside[0].line
        return Crash("update-after-step", {
            "en": f"scaler.update() on line {line} runs once, after the loop; the next "
                  f"scaler.step() on line {where} then fails. Call update() in every iteration, "
                  "right after scaler.step().",
            "ja": f"{line} 行目の `scaler.update()` はループの後に 1 回だけ実行されるため、"
                  f"{where} 行目の次の `scaler.step()` が失敗します。`update()` は毎イテレーション、"
                  "`scaler.step()` の直後に呼びましょう。"}, line)
    return Crash("update-after-step", {
        "en": f"scaler.update() is never called after scaler.step(optimizer) on line {where}, "
              "so the second iteration's step fails. Call scaler.update() right after every step.",
        "ja": f"{where} 行目の `scaler.step(optimizer)` の後に `scaler.update()` が呼ばれていないため、"
              "2 回目のイテレーションのステップが失敗します。毎回ステップの直後に `scaler.update()` を"
              "呼びましょう。"}, where)


def _no_inf_for_optimizer(trace: Trace, static: StaticInfo, events: list[Event],
                          where: int | None) -> Crash:
    backward = _last(events, "backward")
    zero = _last(events, "zero-grad")
    if backward is not None and zero is not None and zero["seq"] > backward["seq"]:
        line = _line(zero, where)
        return Crash("zero-grad-each-iteration", {
            "en": f"zero_grad() on line {line} runs between backward() "
                  f"(line {backward.get('line')}) and scaler.step() (line {where}): it deletes the "
                  "gradients before the optimizer can use them.",
            "ja": f"{line} 行目の `zero_grad()` が `backward()`（{backward.get('line')} 行目）と "
                  f"`scaler.step()`（{where} 行目）の間で実行され、オプティマイザが使う前に勾配を"
                  "クリアしています。"}, line)
    return Crash("backward-on-scaled-loss", {
        "en": f"scaler.step(optimizer) on line {where} found no gradients: in every iteration a backward "
              "pass on the scaled loss must come before it.",
        "ja": f"{where} 行目の `scaler.step(optimizer)` が勾配を見つけられませんでした。毎イテレーシ"
              "ョン、その前にスケールした損失で逆伝播する必要があります。"}, where)


def _fp16_grads(trace: Trace, static: StaticInfo, events: list[Event],
                   where: int | None) -> Crash:
    cast = _last(events, "model-cast")
    line = _line(cast, static.first_line("half") or where)
    return Crash("fp32-master-weights", {
        "en": f"The model was converted to float16 (line {line}), so its gradients are float16 and "
              "GradScaler refuses to unscale them. Keep the weights in float32.",
        "ja": f"モデルが float16 に変換されている（{line} 行目）ため勾配も float16 になり、"
              "GradScaler はスケールを戻せません。重みは float32 のままにしましょう。"}, line)


def _double_unscale(trace: Trace, static: StaticInfo, events: list[Event],
                   where: int | None) -> Crash:
    return Crash("unscale-before-clip", {
        "en": f"scaler.unscale_(optimizer) on line {where} runs a second time before "
              "scaler.update(): unscale once per step, after the backward pass and before "
              "clipping.",
        "ja": f"{where} 行目の `scaler.unscale_(optimizer)` が `scaler.update()` の前に 2 回目の実行に"
              "なっています。`unscale_` はステップごとに 1 回、backward の後・クリッピングの前に呼びま"
              "す。"}, where)


def _unscale_after_step(trace: Trace, static: StaticInfo, events: list[Event],
                        where: int | None) -> Crash:
    return Crash("unscale-before-clip", {
        "en": f"scaler.unscale_(optimizer) on line {where} runs after scaler.step(optimizer): "
              "unscale after the backward pass and before clipping, then step.",
        "ja": f"{where} 行目の `scaler.unscale_(optimizer)` が `scaler.step(optimizer)` の後に実行され"
              "ています。backward の後・クリッピングの前に `unscale_` でスケールを戻し、その後ステップしましょ"
              "う。"}, where)


def _autocast_device(trace: Trace, static: StaticInfo, events: list[Event],
                   where: int | None) -> Crash:
    return Crash("forward-in-autocast", {
        "en": f"torch.autocast on line {where} needs the device type as a string, such as "
              "device.type (\"cuda\" or \"cpu\"), not a torch.device.",
        "ja": f"{where} 行目の torch.autocast にはデバイスの種類を文字列で渡します。torch.device で"
              "はなく device.type（\"cuda\" や \"cpu\"）を使いましょう。"}, where)


_KEYWORD = re.compile(r"unexpected keyword argument '(\w+)'")


def _autocast_arguments(message: str, where: int | None) -> Crash:
    """A TypeError raised by an autocast constructor: the arguments do not fit the spelling used."""
    keyword = _KEYWORD.search(message)
    if keyword:
        name = keyword.group(1)
        # torch.autocast takes device_type: refused, it was the old torch.cuda.amp spelling.
        takes_en, takes_ja = (
            ("torch.cuda.amp.autocast() takes only enabled, dtype and cache_enabled",
             "torch.cuda.amp.autocast() が受け取るのは enabled、dtype、cache_enabled だけです")
            if name == "device_type" else
            ("torch.autocast() takes device_type, dtype, enabled and cache_enabled",
             "torch.autocast() が受け取るのは device_type、dtype、enabled、cache_enabled です"))
        return Crash("forward-in-autocast", {
            "en": f"The autocast on line {where} is called with `{name}=`, which it does not take, so the "
                  f"function stopped there. {takes_en}; write torch.autocast(device_type=device.type, "
                  "dtype=...).",
            "ja": f"{where} 行目の autocast は受け付けない `{name}=` を渡されたため、関数がそこで停止しまし"
                  f"た。{takes_ja}。`torch.autocast(device_type=device.type, dtype=...)` と書きましょう。"}, where)
    return Crash("forward-in-autocast", {
        "en": f"The autocast on line {where} is called without the device type, so the function stopped "
              "there: write torch.autocast(device_type=device.type, dtype=...).",
        "ja": f"{where} 行目の autocast にデバイスの種類が渡されていないため、関数がそこで停止しました。"
              "`torch.autocast(device_type=device.type, dtype=...)` と書きましょう。"}, where)


# AMP methods a typo may aim at: an ordinary Python error, but `runs` can name the real method.
AMP_METHODS = ("backward", "scale", "step", "update", "unscale_", "zero_grad")
_NO_ATTRIBUTE = re.compile(r"object has no attribute '(\w+)'")


def misspelt(error: dict) -> tuple[str, str] | None:
    """(what was called, the AMP method meant) for an AttributeError on a near-miss of one."""
    if error.get("type") != "AttributeError":
        return None
    found = _NO_ATTRIBUTE.search(str(error.get("message", "")))
    if found is None:
        return None
    close = difflib.get_close_matches(found.group(1), list(AMP_METHODS), n=1, cutoff=0.75)
    return (found.group(1), close[0]) if close and close[0] != found.group(1) else None


_RULES = (
    ("_scale is None", _scale_is_none),
    ("No inf checks were recorded prior to update", _no_inf_before_update),
    ("step() has already been called since the last update()", _stepped_twice),
    ("No inf checks were recorded for this optimizer", _no_inf_for_optimizer),
    ("Attempting to unscale FP16 gradients", _fp16_grads),
    ("unscale_() has already been called on this optimizer", _double_unscale),
    ("unscale_() is being called after step()", _unscale_after_step),
    ("Expected `device_type` of type `str`", _autocast_device),
    ("unsupported autocast device_type", _autocast_device),
)
