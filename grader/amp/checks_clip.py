"""The clipping checks: after backward, clip (after unscale_ when there is a scaler), then step."""

from __future__ import annotations

from grader.amp.findings import Context, Finding, failed, passed
from grader.amp.registry import register
from grader.amp.trace import Event, Trace

SLUG_CLIP = "unscale-before-clip"
SLUG_CLIP_PLAIN = "clip-before-step"


@register("unscale-before-clip", needs=("scaler",),
          title={"en": "Gradients are unscaled before clipping",
                 "ja": "クリッピングの前に勾配のスケールを戻す"},
          hint={"en": "Call `scaler.unscale_(optimizer)` after the backward pass and before `clip_grad_norm_`, "
                      "then `scaler.step(optimizer)`.",
                "ja": "backward の後、`clip_grad_norm_` の前に `scaler.unscale_(optimizer)` を呼び、"
                      "その後 `scaler.step(optimizer)` を呼びましょう。"})
def unscale_before_clip(ctx: Context) -> Finding:
    return _judge_clipping(ctx, SLUG_CLIP)


@register(SLUG_CLIP_PLAIN, needs=("no-scaler", "train"),
          title={"en": "Gradients are clipped after backward and before the step",
                 "ja": "勾配を backward の後、ステップの前にクリップする"},
          hint={"en": "Call `clip_grad_norm_` on the model's parameters between `loss.backward()` and "
                      "`optimizer.step()`: without a GradScaler the gradients are already at their true size.",
                "ja": "`loss.backward()` と `optimizer.step()` の間で、モデルのパラメータに `clip_grad_norm_` を"
                      "呼びましょう。GradScaler がなければ勾配は最初から本来の大きさです。"})
def clip_before_step(ctx: Context) -> Finding:
    # The scenario passes no GradScaler (bf16): nothing is scaled, so there is nothing to unscale;
    # what matters is that the clipping falls between the backward pass and the step.
    return _judge_clipping(ctx, SLUG_CLIP_PLAIN)


def _judge_clipping(ctx: Context, slug: str) -> Finding:
    trace = ctx.trace
    clips = trace.of("clip")
    if not clips:
        if not ctx.spec.require_clip:
            return passed(slug)
        if trace.raised:
            return ctx.stopped(slug)
        if slug == SLUG_CLIP_PLAIN:
            return failed(slug, {
                "en": "The gradients are never clipped: call torch.nn.utils.clip_grad_norm_ on the "
                      "model's parameters after the backward pass and before optimizer.step().",
                "ja": "勾配がクリッピングされていません。backward の後、`optimizer.step()` の前に "
                      "`torch.nn.utils.clip_grad_norm_` をモデルのパラメータに対して呼びましょう。"},
                ctx.static.main_loop(ctx.spec.entry) or ctx.def_line)
        return failed(slug, {
            "en": "The gradients are never clipped: call torch.nn.utils.clip_grad_norm_ on the "
                  "model's parameters after scaler.unscale_(optimizer).",
            "ja": "勾配がクリッピングされていません。`scaler.unscale_(optimizer)` の後に "
                  "`torch.nn.utils.clip_grad_norm_` をモデルのパラメータに対して呼びましょう。"},
            ctx.static.main_loop(ctx.spec.entry) or ctx.def_line)
    for clip in clips:
        line = clip.get("line")
        if clip.get("grads_clean"):
            return failed(slug, {
                "en": f"clip_grad_norm_ on line {line} runs before the backward pass, when there "
                      "are no gradients to clip yet.",
                "ja": f"{line} 行目の clip_grad_norm_ が backward より前に実行されており、まだ"
                      "クリップする勾配がありません。"}, line)
        iteration = trace.iteration_of(clip)
        stepped = [e for e in (iteration.events if iteration else [])
                   if e["kind"] in ("scaler-step", "optimizer-step") and e["seq"] < clip["seq"]]
        if stepped:
            at = stepped[0].get("line")
            return failed(slug, {
                "en": f"clip_grad_norm_ on line {line} runs after the optimizer step on line {at}, "
                      "so the update has already used the unclipped gradients.",
                "ja": f"{line} 行目の `clip_grad_norm_` が {at} 行目のステップの後に実行されているた"
                      "め、更新にはクリップ前の勾配が使われています。"}, line)
        if clip.get("unscaled") is False and _clips_scaled_gradients(trace, clip):
            later = [u for u in trace.after(clip, trace.of("unscale"))
                     if not trace.before(u, trace.after(clip, trace.of("scaler-step")))]
            norm = clip.get("total_norm")
            seen = f" (it saw a total norm of {norm:.3g})" if isinstance(norm, float) else ""
            seen_ja = f"（見えていた勾配ノルムは {norm:.3g}）" if isinstance(norm, float) else ""
            at = later[0].get("line") if later else None
            after = f" scaler.unscale_ comes only afterwards, on line {at}." if later else ""
            after_ja = f" scaler.unscale_ はその後の {at} 行目です。" if later else ""
            return failed(slug, {
                "en": f"clip_grad_norm_ on line {line} clips gradients that are still multiplied "
                      f"by the loss scale{seen}, so the threshold means nothing.{after}",
                "ja": f"{line} 行目の `clip_grad_norm_` は、まだロススケールが掛かったままの勾配を"
                      f"クリップしているため{seen_ja}、しきい値が意味を持ちません。{after_ja}"}, line)
    return passed(slug)


def _clips_scaled_gradients(trace: Trace, clip: Event) -> bool:
    """A backward pass on a scaled loss made the gradients this clip sees (since the last step).

    A loop that never scales its loss (a bfloat16 loop that ignores the scaler) clips gradients
    at their true size: its mistake is the unscaled backward, backward-on-scaled-loss's finding.
    """
    steps = trace.before(clip, trace.of("scaler-step", "optimizer-step"))
    since = steps[-1]["seq"] if steps else -1
    return any(b.get("scaled_by") is not None for b in trace.before(clip, trace.of("backward"))
               if b["seq"] > since)
