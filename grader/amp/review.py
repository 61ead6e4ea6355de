"""Runs the AMP checks over one traced run: crash explanation first, then each check by slug."""

from __future__ import annotations

from typing import Any

from grader.amp import checks, crash
from grader.amp.findings import Context, Finding, LoopSpec, failed, skipped
from grader.amp.source_checks import source_finding
from grader.amp.static import StaticInfo
from grader.amp.trace import Trace
from grader.missing import describe_missing, missing_name

# Checks whose subject is the training itself: judged only once the loop trained (a backward
# pass and an optimizer step happened), so an empty or untouched function earns nothing from
# them. The others name the missing step themselves ("never calls backward", "never steps").
# The returned mean is gated too: a loop that never trains earns nothing for its return value.
JUDGES_ABSENCE = frozenset({"forward-in-autocast", "backward-on-scaled-loss", "step-through-scaler",
                            "bf16-autocast"})


class Review:
    """The findings for one run, computed once and looked up by slug from each exercise test."""

    def __init__(self, result: dict[str, Any], source: str, spec: LoopSpec | None = None, *,
                 reference: dict[str, Any] | None = None) -> None:
        self.spec = spec or LoopSpec()
        self.source = source
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

    @property
    def trained(self) -> bool:
        """The loop did its work at all: a backward pass and an optimizer step (eval: a forward pass)."""
        if self.spec.mode == "eval":
            return bool(self.trace.of("forward"))
        return bool(self.trace.of("backward")) and bool(self.trace.of("scaler-step", "optimizer-step"))

    def applies(self, slug: str) -> bool:
        """The check's question makes sense in this scenario (its needs are met)."""
        return not self.spec.unmet(checks.get(slug).needs)

    def finding(self, slug: str) -> Finding:
        if slug not in self._findings:
            known = self.context.crash
            check = checks.get(slug)
            if known is not None and known.slug == slug:
                found = failed(slug, known.message, known.line)
            elif slug not in JUDGES_ABSENCE and not self.trained:
                found = self._untrained(slug)
            else:
                found = check.function(self.context)
            if found.status == "skip" and self.trace.raised:
                # The run stopped before the check could see: what the source alone proves still counts.
                found = source_finding(self.context, slug) or found
            self._findings[slug] = found
        return self._findings[slug]

    def _untrained(self, slug: str) -> Finding:
        """The subject of the check never happened: skipped (never passed), saying why."""
        if self.trace.raised:
            return self.context.stopped(slug)
        if self.spec.mode == "eval":
            return skipped(slug, {
                "en": "Not checked: your function never runs the model, so there is nothing to judge here yet.",
                "ja": "未確認：関数がモデルを一度も実行していないため、まだここで判定できることがありません。"})
        return skipped(slug, {
            "en": "Not checked: your function never trains the model (no backward() followed by an "
                  "optimizer step ran), so there is nothing to judge here yet.",
            "ja": "未確認：関数がモデルを学習していません（`backward()` とオプティマイザのステップが実行されて"
                  "いません）。まだここで判定できることがありません。"})

    def all(self, slugs: list[str] | None = None) -> dict[str, Finding]:
        """The findings of `slugs`, or of every check that applies to this scenario."""
        return {slug: self.finding(slug)
                for slug in (slugs or [s for s in checks.all_checks() if self.applies(s)])}

    @property
    def advice(self) -> list[dict[str, str]]:
        """Non-failing notes; the checks add them as they run, so run the advising ones first."""
        self.all([slug for slug, check in checks.all_checks().items() if check.advises and self.applies(slug)])
        return list(self.context.advice)

    def runs(self) -> Finding:
        """The function ran to the end; a crash is explained by the check it belongs to."""
        error = self.trace.error
        if error is None:
            return Finding("runs", "pass")
        if (name := missing_name(error)) is not None:
            message, at = describe_missing(name, self.source)
            return failed("runs", message, at)
        line = error.get("line")
        where_en, where_ja = (f" on line {line}", f"（{line} 行目）") if line else ("", "")
        if self.crash is not None:
            title = checks.get(self.crash.slug).title  # learners read titles, never check ids
            return failed("runs", {
                "en": f"Your function stopped{where_en} because of the mistake reported under "
                      f"“{title['en']}”.",
                "ja": f"「{title['ja']}」で報告している誤りのため、関数が停止しまし"
                      f"た{where_ja}。"},
                line)
        kind, message = error.get("type", "Error"), str(error.get("message", ""))[:300]
        typo = crash.misspelt(error)
        if typo is not None:  # an ordinary Python error, not an AMP mistake: named, with the method meant
            return failed("runs", {
                "en": f"Your function stopped with AttributeError{where_en}: `{typo[0]}()` does not exist; "
                      f"the method is `{typo[1]}()`.",
                "ja": f"関数が AttributeError で停止しました{where_ja}。`{typo[0]}()` は存在しません。正しいメソッド"
                      f"名は `{typo[1]}()` です。"}, line)
        return failed("runs", {
            "en": f"Your function stopped with {kind}{where_en}: {message}",
            "ja": f"関数が {kind} で停止しました{where_ja}。エラーメッセージ：{message}"}, line)
