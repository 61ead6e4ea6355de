"""Outcome checks: the learner's weights after the epoch against the reference solution's, same data."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import torch

from grader.amp.findings import Finding, failed, passed

SLUG = "weights-match-reference"
# Correct loops differ by about 2.5e-3 between float16 and bfloat16 autocast on these models;
# the mistakes that change training (double steps, scaled clipping, skipped batches) by 5e-2+.
TOLERANCE = 1e-2


def reference_run(solution: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """The reference solution through the same scenario, here in the trusted harness."""
    from grader.scenarios.amp import run_traced

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_traced(solution, params)


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
