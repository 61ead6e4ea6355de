"""Outcome check: the learner's weights after the epoch against the reference's, same data."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import torch

from grader.amp.findings import Finding, failed, passed
from grader.scenarios.amp import run_traced  # also defers torch's compiler import (speed)

SLUG = "weights-match-reference"
# The reference runs in the learner's precision, so correct loops match to ~1e-6; the slack is
# for harmless differences (a loss computed outside autocast). Mistakes that change training
# (double steps, scaled clipping, skipped batches) move the weights by 5e-2 and more.
TOLERANCE = 1e-2


def learner_precision(result: dict[str, Any]) -> str | None:
    """The one precision the learner's forward passes ran in ("float32" without autocast)."""
    seen = {e.get("autocast_dtype") if e.get("autocast") else "float32"
            for e in result.get("events") or []
            if isinstance(e, dict) and e.get("kind") == "forward"}
    if len(seen) == 1 and seen <= {"float16", "bfloat16", "float32"}:
        return seen.pop()
    return None


EXTRA_NOTES: dict[str, dict[str, str]] = {
    "clip": {"en": "Your loop also clips the gradients after scaler.unscale_, which this exercise did not "
                   "ask for; it was compared with a reference that clips the same way.",
             "ja": "このループは scaler.unscale_ の後で勾配もクリップしています（この演習では求めていま"
                   "せん）。同じようにクリップする模範解答と比べました。"},
    "lr": {"en": "Your loop changes the learning rate during the epoch (a scheduler), which this exercise "
                 "did not ask for; it was compared with a reference using the same learning rates.",
           "ja": "このループはエポック中に学習率を変えています（スケジューラ）。この演習では求めていませ"
                 "ん。同じ学習率を使う模範解答と比べました。"},
}


def extras(result: dict[str, Any], *, clip_asked: bool = False) -> dict[str, list[Any]]:
    """The learner's legitimate extras, per optimizer step, for the reference to replay.

    - "lr": the learning rates at each step, when they changed during the epoch (a scheduler);
    - "clip": the clipping done before each step, after unscale_, unless the exercise asks for
      clipping itself (then clipping is what is graded, and the reference clips as asked).
    Clipping of still-scaled gradients is not replayed: that is a mistake, not an extra.
    """
    events = [e for e in result.get("events") or [] if isinstance(e, dict)]
    steps = [e for e in events if e.get("kind") == "optimizer-step"]
    found: dict[str, list[Any]] = {}
    lrs = [e.get("lr") for e in steps]
    if len({tuple(lr or ()) for lr in lrs}) > 1:
        found["lr"] = lrs
    scaled = any(e.get("kind") == "scale" for e in events)  # without a scaler there is nothing to unscale
    if not clip_asked:
        clips, pending = [], None
        for event in events:
            if event.get("kind") == "clip" and (event.get("unscaled") is not False or not scaled) \
                    and event.get("limit"):
                pending = {"fn": event.get("fn"), "limit": event["limit"], "norm_type": event.get("norm_type")}
            elif event.get("kind") == "optimizer-step":
                clips.append(pending)
                pending = None
        if any(clips):
            found["clip"] = clips
    return found


def reference_run(solution: ModuleType, params: dict[str, Any], *,
                  like: dict[str, Any] | None = None, clip_asked: bool = False) -> dict[str, Any]:
    """The reference solution through the same scenario, here in the trusted harness.

    With `like` (the learner's result) the reference autocasts to the learner's precision, so
    a correct float16 loop is not failed for differing from a bfloat16 reference by rounding,
    and it replays the learner's legitimate extras (see `extras`); the result's "extras" names them.
    """
    forced = learner_precision(like) if like is not None else None
    replay = extras(like, clip_asked=clip_asked) if like is not None else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_traced(solution, {**params, "force_dtype": forced, "replay": replay})
    result["extras"] = sorted(replay)
    return result


def weights_match(learner: dict[str, Any], reference: dict[str, Any], *, line: int | None,
                  tolerance: float = TOLERANCE) -> Finding:
    state, expected = learner.get("state") or {}, reference["state"]
    missing = sorted(set(expected) - set(state))
    if missing:
        return failed(SLUG, {"en": f"The model came back without {missing[0]}.",
                             "ja": f"モデルから {missing[0]} が失われています。"}, line)
    worst_name, worst = "", 0.0
    for name, want in expected.items():
        got = state[name]
        if not isinstance(got, torch.Tensor) or got.shape != want.shape:
            return failed(SLUG, {"en": f"{name} changed shape during training.",
                                 "ja": f"学習中に {name} の形が変わりました。"}, line)
        gap = float((got.float() - want.float()).abs().max())
        if gap != gap or gap > worst:  # NaN counts as the worst gap of all
            worst_name, worst = name, gap
            if gap != gap:
                break
    if worst <= tolerance:
        return passed(SLUG)
    return failed(SLUG, {
        "en": f"After one epoch the weights differ from the reference solution's on the same data "
              f"(largest gap {worst:.3g} in {worst_name}, allowed {tolerance:g}).",
        "ja": f"同じデータで 1 エポック学習した後の重みが模範解答と異なります（{worst_name} で最大 "
              f"{worst:.3g} の差、許容は {tolerance:g}）。"}, line)
