"""The returned value against the reference solution's, on the same data and weights (issue 37)."""

from __future__ import annotations

import math
import sys
from typing import Any

from grader.amp.findings import Context, Finding, failed, passed, skipped
from grader.amp.registry import register

SLUG_RETURNED = "returns-like-reference"
REL_TOL, ABS_TOL = 1e-3, 1e-4  # the reference runs in the learner's precision: rounding only


def numbers(value: Any) -> list[float] | None:
    """A returned value as a flat list of floats (a number, a small tensor, a tuple of them), else None."""
    torch = sys.modules.get("torch")  # looked up: the web app reads the titles without torch
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return [float(value)]
    if torch is not None and isinstance(value, torch.Tensor):
        return [float(x) for x in value.detach().float().flatten().tolist()]
    if isinstance(value, (list, tuple)):
        flat = [numbers(item) for item in value]
        return None if any(f is None for f in flat) else [x for f in flat for x in f]  # type: ignore[union-attr]
    return None


def _shown(value: list[float]) -> str:
    return ", ".join(f"{x:.4g}" for x in value) if len(value) > 1 else f"{value[0]:.4g}"


@register(SLUG_RETURNED,
          title={"en": "Returns what the reference returns", "ja": "模範解答と同じ値を返す"},
          hint={"en": "Compare what your function returns with what the prompt asks for: which quantity, over "
                      "which batches, and as which type.",
                "ja": "関数の戻り値を問題文の求めるものと比べましょう。どの量を、どのバッチについて、どの型で返すか"
                      "を確認しましょう。"})
def returns_like_reference(ctx: Context) -> Finding:
    trace = ctx.trace
    if trace.raised:
        return ctx.stopped(SLUG_RETURNED)
    if ctx.reference is None:
        # The reference checked against its own scenario (grader.amp.outcome.check_reference):
        # there is nothing else to compare with, and a value is always its own.
        return passed(SLUG_RETURNED)
    line = ctx.return_line
    want, got = numbers(ctx.reference.get("returned")), numbers(trace.returned)
    if want is None:
        return skipped(SLUG_RETURNED, {"en": "Not checked: the reference's returned value could not be read.",
                                       "ja": "未確認：模範解答の戻り値を読み取れませんでした。"})
    entry = ctx.spec.entry
    if got is None:
        kind = "None" if trace.returned_type == "NoneType" else trace.returned_type
        return failed(SLUG_RETURNED, {
            "en": f"{entry} returned {kind}; the reference solution returns {_shown(want)} on the same data.",
            "ja": f"{entry} の戻り値は {kind} ですが、同じデータで模範解答は {_shown(want)} を返します。"}, line)
    if len(got) != len(want) or not all(math.isclose(g, w, rel_tol=REL_TOL, abs_tol=ABS_TOL)
                                        for g, w in zip(got, want, strict=False)):
        return failed(SLUG_RETURNED, {
            "en": f"{entry} returned {_shown(got)}, but the reference solution returns {_shown(want)} on the same "
                  "data and the same weights.",
            "ja": f"{entry} の戻り値は {_shown(got)} ですが、同じデータ・同じ重みで模範解答は {_shown(want)} を"
                  "返します。"}, line)
    want_kind = str(ctx.reference.get("returned_type") or type(ctx.reference.get("returned")).__name__)
    if want_kind in ("float", "int") and trace.returned_type not in ("float", "int"):
        return failed(SLUG_RETURNED, {
            "en": f"{entry} returned the right value as a {trace.returned_type}; the reference returns a Python "
                  f"{want_kind} (call .item() on a one-element tensor).",
            "ja": f"{entry} は正しい値を {trace.returned_type} で返しています。模範解答は Python の {want_kind} を"
                  "返します（要素 1 個のテンソルには .item() を使いましょう）。"}, line)
    return passed(SLUG_RETURNED)
