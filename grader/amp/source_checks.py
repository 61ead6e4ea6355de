"""What the source alone proves, for a run that stopped before a check could see it.

A crash early in the first batch leaves the trace empty; the static pass still reads the
learner's function. Only mistakes the source proves on its own are reported, each at its line:
a backward pass on a loss that is never scaled, an optimizer.step() where scaler.step never
appears. Anything that needs the run to be judged stays skipped.
"""

from __future__ import annotations

from grader.amp.findings import Context, Finding, failed


def source_finding(ctx: Context, slug: str) -> Finding | None:
    """The failure the source proves for `slug`, or None (then the check stays skipped)."""
    if not ctx.static.ok or not ctx.spec.require_scaler:
        return None  # without a required scaler a plain backward and step are right
    # Absence is read over the whole file: a helper may scale or step for the entry function.
    calls = ctx.static.calls
    if slug == "backward-on-scaled-loss" and not any(c.name == "scale" for c in calls):
        plain = [c for c in calls if c.name == "backward" and not c.on_scaled]
        if plain:
            line = plain[0].line
            return failed(slug, {
                "en": f"backward() on line {line} runs on the plain loss: your code never calls "
                      "scaler.scale(loss), so in float16 small gradients underflow to zero. (Read from "
                      "your code: the run stopped before this line.)",
                "ja": f"{line} 行目の `backward()` はスケールしていない損失に対して呼ばれています。コードのどこでも "
                      "`scaler.scale(loss)` が呼ばれないため、float16 では小さな勾配が 0 になります"
                      "（実行が途中で停止したため、コードから判定しました）。"}, line)
    if slug == "step-through-scaler" and not any(c.name == "step" and c.nargs >= 1 for c in calls):
        direct = [c for c in calls if c.name == "step" and c.nargs == 0 and "sched" not in (c.receiver or "")]
        if direct:
            line = direct[0].line
            return failed(slug, {
                "en": f"optimizer.step() on line {line} bypasses the GradScaler, and scaler.step(optimizer) "
                      "appears nowhere in your code: steps with inf/NaN gradients would not be "
                      "skipped. (Read from your code: the run stopped before it could be seen.)",
                "ja": f"{line} 行目の `optimizer.step()` は GradScaler を通っておらず、コードのどこにも "
                      "`scaler.step(optimizer)` がありません。inf/NaN の勾配によるステップがスキップされません"
                      "（実行が途中で停止したため、コードから判定しました）。"}, line)
    return None
