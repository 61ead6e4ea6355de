"""Titles and hints of the AMP checks, in English and Japanese (what the learner reads first)."""

from __future__ import annotations

Text = dict[str, str]

TITLES: dict[str, Text] = {
    "forward-in-autocast": {"en": "The forward pass and the loss run under autocast",
                            "ja": "順伝播と損失の計算が autocast の中で行われる"},
    "backward-outside-autocast": {"en": "backward() runs outside autocast",
                                  "ja": "backward() が autocast の外で実行される"},
    "backward-on-scaled-loss": {"en": "backward() runs on the scaled loss",
                                "ja": "スケールした損失に対して backward() を呼ぶ"},
    "step-through-scaler": {"en": "The optimizer steps once per batch through the scaler",
                            "ja": "オプティマイザはバッチごとに 1 回、scaler 経由で step する"},
    "update-after-step": {"en": "scaler.update() runs once per step, after scaler.step()",
                          "ja": "scaler.update() は step ごとに 1 回、scaler.step() の後に呼ぶ"},
    "zero-grad-each-iteration": {"en": "Gradients are cleared once per iteration",
                                 "ja": "勾配はイテレーションごとに 1 回クリアされる"},
    "unscale-before-clip": {"en": "Gradients are unscaled before clipping",
                            "ja": "クリッピングの前に勾配のスケールを戻す"},
    "fp32-master-weights": {"en": "The model's weights stay in float32",
                            "ja": "モデルの重みは float32 のまま"},
    "one-scaler": {"en": "One GradScaler, the one passed in",
                   "ja": "GradScaler は 1 つだけ（引数で渡されたもの）"},
    "mean-loss-returned": {"en": "Returns the mean loss over the batches",
                           "ja": "バッチ全体の平均損失を返す"},
    "trains-every-batch": {"en": "Trains on every batch of the loader",
                           "ja": "ローダーのすべてのバッチで学習する"},
    "bf16-autocast": {"en": "Autocast runs in bfloat16", "ja": "autocast が bfloat16 で動く"},
    "accumulation-window": {"en": "Steps once every k micro-batches, with the loss divided by k",
                            "ja": "k 個のマイクロバッチごとに 1 回 step し、損失を k で割る"},
}

HINTS: dict[str, Text] = {
    "forward-in-autocast": {
        "en": "Put `outputs = model(inputs)` and `loss = criterion(outputs, targets)` inside "
              "`with torch.autocast(device_type=device.type, dtype=...):`.",
        "ja": "`outputs = model(inputs)` と `loss = criterion(outputs, targets)` を "
              "`with torch.autocast(device_type=device.type, dtype=...):` の中に入れましょう。"},
    "backward-outside-autocast": {
        "en": "Dedent the backward call so that it comes after the `with torch.autocast(...)` "
              "block.",
        "ja": "backward の呼び出しのインデントを戻し、`with torch.autocast(...)` ブロックの後に置"
              "きましょう。"},
    "backward-on-scaled-loss": {
        "en": "Write `scaler.scale(loss).backward()` instead of `loss.backward()`.",
        "ja": "`loss.backward()` ではなく `scaler.scale(loss).backward()` と書きましょう。"},
    "step-through-scaler": {
        "en": "Replace `optimizer.step()` with `scaler.step(optimizer)`, once per batch.",
        "ja": "`optimizer.step()` をバッチごとに 1 回の `scaler.step(optimizer)` に置き換えましょ"
              "う。"},
    "update-after-step": {
        "en": "Call `scaler.update()` inside the loop, right after `scaler.step(optimizer)`.",
        "ja": "ループの中で `scaler.step(optimizer)` の直後に `scaler.update()` を呼びましょう。"},
    "zero-grad-each-iteration": {
        "en": "Call `optimizer.zero_grad()` at the start of each iteration, before the backward "
              "pass.",
        "ja": "各イテレーションの最初（backward の前）に `optimizer.zero_grad()` を呼びましょう。"},
    "unscale-before-clip": {
        "en": "Call `scaler.unscale_(optimizer)` after the backward pass and before "
              "`clip_grad_norm_`, then `scaler.step(optimizer)`.",
        "ja": "backward の後、`clip_grad_norm_` の前に `scaler.unscale_(optimizer)` を呼び、"
              "その後 `scaler.step(optimizer)` を呼びましょう。"},
    "fp32-master-weights": {
        "en": "Do not call `.half()` or `.to(torch.float16)` on the model; autocast chooses the "
              "precision of each operation while the weights stay float32.",
        "ja": "モデルに `.half()` や `.to(torch.float16)` を使わないでください。重みは float32 の"
              "まま、演算ごとの精度は autocast が選びます。"},
    "one-scaler": {
        "en": "Use the `scaler` argument; do not create a GradScaler inside the function.",
        "ja": "引数の `scaler` を使い、関数の中で GradScaler を作らないでください。"},
    "mean-loss-returned": {
        "en": "Add up `loss.item()` for every batch and divide by the number of batches.",
        "ja": "各バッチの `loss.item()` を合計し、バッチ数で割りましょう。"},
    "trains-every-batch": {
        "en": "Loop over the whole loader: `for inputs, targets in loader:` with no `break` or "
              "`continue`.",
        "ja": "`for inputs, targets in loader:` でローダー全体を回し、`break` や `continue` で飛ば"
              "さないでください。"},
    "bf16-autocast": {
        "en": "Pass `dtype=torch.bfloat16` to `torch.autocast`.",
        "ja": "`torch.autocast` に `dtype=torch.bfloat16` を渡しましょう。"},
    "accumulation-window": {
        "en": "Divide the loss by `accum_steps` inside autocast, scale it and call backward on "
              "every batch; step, update and zero_grad only when `(i + 1) % accum_steps == 0`.",
        "ja": "autocast の中で損失を `accum_steps` で割り、毎バッチ scale して backward します。"
              "step・update・zero_grad は `(i + 1) % accum_steps == 0` のときだけ行いましょう。"},
}


def title(slug: str) -> Text:
    return TITLES[slug]


def hint(slug: str) -> Text:
    return HINTS[slug]
