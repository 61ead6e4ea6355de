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


def reference_run(solution: ModuleType, params: dict[str, Any], *,
                  like: dict[str, Any] | None = None) -> dict[str, Any]:
    """The reference solution through the same scenario, here in the trusted harness.

    With `like` (the learner's result) the reference autocasts to the learner's precision, so
    a correct float16 loop is not failed for differing from a bfloat16 reference by rounding.
    """
    forced = learner_precision(like) if like is not None else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_traced(solution, {**params, "force_dtype": forced})


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
