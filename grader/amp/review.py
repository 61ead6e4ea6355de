"""Runs the AMP checks over one traced run: crash explanation first, then each check by slug."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.amp import checks_clip, checks_loop, checks_scaler, checks_scope, crash
from grader.amp.findings import Context, Finding, LoopSpec, failed
from grader.amp.static import StaticInfo
from grader.amp.trace import Trace

CheckFunction = Callable[[Context], Finding]

CHECKS: dict[str, CheckFunction] = {
    "forward-in-autocast": checks_scope.forward_in_autocast,
    "backward-outside-autocast": checks_scope.backward_outside_autocast,
    "backward-on-scaled-loss": checks_scaler.backward_on_scaled_loss,
    "step-through-scaler": checks_scaler.step_through_scaler,
    "update-after-step": checks_scaler.update_after_step,
    "zero-grad-each-iteration": checks_loop.zero_grad_each_iteration,
    "unscale-before-clip": checks_clip.unscale_before_clip,
    "fp32-master-weights": checks_scope.fp32_master_weights,
    "one-scaler": checks_scaler.one_scaler,
    "mean-loss-returned": checks_loop.mean_loss_returned,
    "trains-every-batch": checks_loop.trains_every_batch,
    "bf16-autocast": checks_scope.bf16_autocast,
    "accumulation-window": checks_loop.accumulation_window,
}

# Checks that may add advice (deprecated spellings, loss outside autocast, tensor returned).
_ADVISING = ("forward-in-autocast", "one-scaler", "mean-loss-returned")


class Review:
    """The findings for one run, computed once and looked up by slug from each exercise test."""

    def __init__(self, result: dict[str, Any], source: str, spec: LoopSpec | None = None, *,
                 reference: dict[str, Any] | None = None) -> None:
        self.spec = spec or LoopSpec()
        trace = Trace.from_result(result, accumulate=self.spec.accumulate)
        static = StaticInfo.from_source(source)
        self.context = Context(trace, static, self.spec, crash.classify(trace, static),
                               reference=reference)
        self._findings: dict[str, Finding] = {}

    @property
    def trace(self) -> Trace:
        return self.context.trace

    @property
    def crash(self) -> crash.Crash | None:
        return self.context.crash

    def finding(self, slug: str) -> Finding:
        if slug not in self._findings:
            known = self.context.crash
            if known is not None and known.slug == slug:
                self._findings[slug] = failed(slug, known.message, known.line)
            else:
                self._findings[slug] = CHECKS[slug](self.context)
        return self._findings[slug]

    def all(self, slugs: list[str] | None = None) -> dict[str, Finding]:
        return {slug: self.finding(slug) for slug in (slugs or list(CHECKS))}

    @property
    def advice(self) -> list[dict[str, str]]:
        """Non-failing notes; the checks add them as they run, so run them all first."""
        self.all([slug for slug in CHECKS if slug in _ADVISING])
        return list(self.context.advice)

    def runs(self) -> Finding:
        """The function ran to the end; a crash is explained by the check it belongs to."""
        error = self.trace.error
        if error is None:
            return Finding("runs", "pass")
        line = error.get("line")
        where_en, where_ja = (f" on line {line}", f"（{line} 行目）") if line else ("", "")
        if self.crash is not None:
            return failed("runs", {
                "en": f"Your function stopped{where_en} because of the mistake reported under "
                      f"'{self.crash.slug}'.",
                "ja": f"'{self.crash.slug}' で報告している誤りのため、関数が停止しまし"
                      f"た{where_ja}。"},
                line)
        kind, message = error.get("type", "Error"), str(error.get("message", ""))[:300]
        return failed("runs", {
            "en": f"Your function stopped with {kind}{where_en}: {message}",
            "ja": f"関数が {kind} で停止しました{where_ja}: {message}"}, line)
