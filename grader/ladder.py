"""The hint ladder of a failing check: a nudge, then the concept with its lesson section, then the API.

The nudge is the check's own `hint` (in the results document). The two rungs above it are
revealed on request; an exercise folder writes them in `hints.toml`, one table per check id:

    [standardize-shape-values]
    lesson = "01-tensors"                            # the lesson folder
    section = "Operations and broadcasting"          # an h2/h3 heading of its en.md
    concept = {en = "...", ja = "..."}
    api = {en = "...", ja = "..."}

A check the folder does not write takes the grader's defaults (DEFAULTS, for the AMP checks),
else the lesson of the exercise. No rung may hold a solution line (grader.leaks). Reading and
checking this file needs no torch: the web app serves the rungs.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

LADDER_FILE = "hints.toml"
RUNGS = ("concept", "api")  # above the nudge, in the order they are revealed
LANGS = ("en", "ja")
KEYS = {"lesson", "section", *RUNGS}

# The AMP checks' rungs, shared by every AMP exercise (grader/amp registers their nudges).
_L3 = "03-mixed-precision"
DEFAULTS: dict[str, dict[str, object]] = {
    "batch-on-device": {
        "lesson": "01-tensors", "section": "Devices: CPU and GPU",
        "concept": {"en": "A model's weights and its inputs must live on the same device; moving a tensor makes a "
                          "copy there and leaves the original where it was.",
                    "ja": "モデルの重みと入力は同じデバイスにある必要があります。テンソルを移すとそこにコピーが作られ、"
                          "元のテンソルはそのまま残ります。"},
        "api": {"en": "`Tensor.to(device)` returns the tensor on `device`.",
                "ja": "`Tensor.to(device)` は `device` 上のテンソルを返します。"}},
                      "forward-in-autocast": {
        "lesson": _L3, "section": "Autocast: choosing a precision per operation",
        "concept": {"en": "Autocast picks a precision for each operation run inside its block: the forward pass and "
                          "the loss must be inside it to run in 16 bits.",
                    "ja": "autocast はブロックの中で実行される演算ごとに精度を選びます。16 ビットで動かすには、"
                          "順伝播と損失の計算をブロックの中に入れる必要があります。"},
        "api": {"en": "`torch.autocast(device_type=..., dtype=...)` is a context manager (a `with` block).",
                "ja": "`torch.autocast(device_type=..., dtype=...)` "
                      "はコンテキストマネージャ（`with` ブロック）です。"}},
    "backward-outside-autocast": {
        "lesson": _L3, "section": "The complete training loop",
        "concept": {"en": "Backward runs each operation in the precision its forward used, so it needs no autocast; "
                          "autocast around it is not recommended.",
                    "ja": "逆伝播は各演算を順伝播で使われた精度のまま実行するので autocast は不要で、"
                          "autocast の中で呼ぶことは推奨されていません。"},
        "api": {"en": "The `with torch.autocast(...)` block ends where the indentation returns; backward belongs "
                      "after it.",
                "ja": "`with torch.autocast(...)` のブロックはインデントが戻るところで終わります。"
                      "逆伝播はその後です。"}},
    "backward-on-scaled-loss": {
        "lesson": _L3, "section": "GradScaler: loss scaling that adjusts itself",
        "concept": {"en": "Small float16 gradients underflow to zero; multiplying the loss by a large factor before "
                          "backward scales every gradient up with it.",
                    "ja": "float16 の小さな勾配は 0 にアンダーフローします。逆伝播の前に損失へ大きな係数を掛けると、"
                          "すべての勾配も一緒に大きくなります。"},
        "api": {"en": "`GradScaler.scale(tensor)` returns the tensor times the current scale.",
                "ja": "`GradScaler.scale(tensor)` は現在のスケールを掛けたテンソルを返します。"}},
                      "step-through-scaler": {
        "lesson": _L3, "section": "GradScaler: loss scaling that adjusts itself",
        "concept": {"en": "The gradients are still multiplied by the scale: the scaler must divide them back and skip "
                          "the step when one is inf or NaN.",
                    "ja": "勾配にはまだスケールが掛かっています。スケーラーがスケールを戻し、"
                          "inf や NaN があればステップをスキップする必要があります。"},
        "api": {"en": "`GradScaler.step(optimizer)` unscales and then calls the optimizer's `step` (or skips it).",
                "ja": "`GradScaler.step(optimizer)` は勾配のスケールを戻してからオプティマイザの `step` を呼びます"
                      "（またはスキップします）。"}},
    "update-after-step": {
        "lesson": _L3, "section": "GradScaler: loss scaling that adjusts itself",
        "concept": {"en": "The scale adapts: it shrinks after a step with inf/NaN gradients and grows after a run "
                          "of good steps. Each iteration ends by telling the scaler how it went.",
                    "ja": "スケールは変化します。inf/NaN の勾配があったステップの後は小さく、うまくいくステップが"
                          "続くと大きくなります。各イテレーションの最後にスケーラーへ結果を伝えます。"},
        "api": {"en": "`GradScaler.update()` adjusts the scale; once per iteration, after the scaler's step.",
                "ja": "`GradScaler.update()` がスケールを調整します。"
                      "イテレーションごとに 1 回、スケーラーのステップの後です。"}},
    "zero-grad-each-iteration": {
        "lesson": _L3, "section": "Clear gradients every iteration",
        "concept": {"en": "Backward adds to `.grad`; without clearing, each step uses the sum of every batch so far.",
                    "ja": "backward は `.grad` に足し込みます。クリアしないと、各ステップがそれまでの全バッチの"
                          "合計を使います。"},
        "api": {"en": "`Optimizer.zero_grad()` clears the gradients of the parameters it updates.",
                "ja": "`Optimizer.zero_grad()` は更新するパラメータの勾配をクリアします。"}},
                      "unscale-before-clip": {
        "lesson": _L3, "section": "Unscale before clipping gradients",
        "concept": {"en": "A gradient norm measured on scaled gradients is the scale times too large: unscale first, "
                          "then clip, then step.",
                    "ja": "スケールされた勾配で測ったノルムはスケール倍だけ大きすぎます。"
                          "先にスケールを戻し、次にクリップ、最後にステップです。"},
        "api": {"en": "`GradScaler.unscale_(optimizer)` divides that optimizer's gradients in place, once per step.",
                "ja": "`GradScaler.unscale_(optimizer)` はそのオプティマイザの勾配のスケールをその場で戻します。"
                      "ステップごとに 1 回です。"}},
    "fp32-master-weights": {
        "lesson": _L3, "section": "Do not call `.half()` on the model",
        "concept": {"en": "AMP keeps the weights in float32 and lets autocast cast per operation; 16-bit weights lose "
                          "small updates.",
                    "ja": "AMP は重みを float32 のまま保ち、演算ごとの変換は autocast に任せます。16 ビットの重みでは"
                          "小さな更新が失われます。"},
        "api": {"en": "Leave the model's dtype alone; `torch.autocast` chooses the precision.",
                "ja": "モデルの dtype は変えず、精度は `torch.autocast` に選ばせましょう。"}},
                      "one-scaler": {
        "lesson": _L3, "section": "GradScaler: loss scaling that adjusts itself",
        "concept": {"en": "The scaler remembers its scale from step to step; a new one starts over every time.",
                    "ja": "スケーラーはステップをまたいでスケールを覚えています。新しく作るたびに最初からになります。"},
        "api": {"en": "The function receives its `GradScaler` as an argument.",
                "ja": "関数は `GradScaler` を引数として受け取ります。"}},
                      "trains-every-batch": {
        "lesson": "02-training-loop", "section": "The loop, step by step",
        "concept": {"en": "One epoch is one pass over every batch the loader yields.",
                    "ja": "1 エポックは、ローダーが返すすべてのバッチを 1 回ずつ通すことです。"},
        "api": {"en": "A `for` loop over the DataLoader yields each batch once.",
                "ja": "DataLoader に対する `for` ループは各バッチを 1 回ずつ返します。"}},
                      "mean-loss-returned": {
        "lesson": "02-training-loop", "section": "Tracking the mean loss",
        "concept": {"en": "The mean loss of an epoch is the sum of the batch losses divided by the number of batches.",
                    "ja": "エポックの平均損失は、バッチごとの損失の合計をバッチ数で割ったものです。"},
        "api": {"en": "`Tensor.item()` gives a Python float; `Tensor.detach()` keeps a tensor without its graph.",
                "ja": "`Tensor.item()` は Python の float を返し、`Tensor.detach()` "
                      "は計算グラフなしのテンソルを返します。"}},
    "bf16-autocast": {
        "lesson": _L3, "section": "FP16 vs BF16",
        "concept": {"en": "bfloat16 has float32's range, so its gradients do not underflow and need no scaler.",
                    "ja": "bfloat16 は float32 と同じ範囲を持つので、勾配がアンダーフローせずスケーラーも不要です。"},
        "api": {"en": "`torch.autocast` takes the precision as its `dtype` argument.",
                "ja": "`torch.autocast` は精度を `dtype` 引数で受け取ります。"}},
                      "runs": {
        "lesson": _L3, "section": "Common mistakes and what torch says",
        "concept": {"en": "When one step raises, the epoch ends there and every later check has nothing to look at: "
                          "the check named in the message is the mistake to fix first.",
                    "ja": "1 つのステップでエラーが起きるとエポックはそこで終わり、後のチェックは確認できません。"
                          "メッセージで名前が挙がったチェックの誤りを先に直しましょう。"},
        "api": {"en": "The traceback in your code's output names the line and the call that raised.",
                "ja": "コードの出力にあるトレースバックが、エラーを出した行と呼び出しを示します。"}},
    "accumulation-window": {
        "lesson": "04-bigger-models", "section": "Gradient accumulation",
        "concept": {"en": "Gradients of several micro-batches add up in `.grad`; the optimizer steps once per window "
                          "and the gradients are cleared after that step.",
                    "ja": "複数のマイクロバッチの勾配は `.grad` に足し合わされます。"
                          "オプティマイザはウィンドウごとに 1 回"
                          "ステップし、その後で勾配をクリアします。"},
        "api": {"en": "`enumerate(loader)` numbers the batches; `%` tells whether a number divides another.",
                "ja": "`enumerate(loader)` はバッチに番号を付け、`%` は割り切れるかどうかを教えます。"}},
    "clip-before-step": {
        "lesson": _L3, "section": "FP16 vs BF16",
        "concept": {"en": "Without a GradScaler nothing multiplies the gradients, so they can be clipped as they "
                          "are: after the backward pass makes them and before the step uses them.",
                    "ja": "GradScaler がなければ勾配には何も掛かっていないので、そのままクリップできます。"
                          "backward が勾配を作った後、ステップがそれを使う前です。"},
        "api": {"en": "`torch.nn.utils.clip_grad_norm_(parameters, max_norm)` rescales the gradients in place.",
                "ja": "`torch.nn.utils.clip_grad_norm_(parameters, max_norm)` は勾配をその場で縮めます。"}},
    "eval-mode": {
        "lesson": _L3, "section": "Inference under autocast",
        "concept": {"en": "Dropout and batch norm behave differently while training; evaluation switches them to "
                          "their inference behaviour.",
                    "ja": "Dropout や BatchNorm は学習中と推論時で動きが異なります。"
                          "評価では推論時の動きに切り替えます。"},
        "api": {"en": "`Module.eval()` sets a model and all its submodules to evaluation mode.",
                "ja": "`Module.eval()` はモデルとそのすべての部分モジュールを評価モードにします。"}},
    "no-grad-in-eval": {
        "lesson": _L3, "section": "Inference under autocast",
        "concept": {"en": "Autograd records every operation it may differentiate later; evaluation never "
                          "differentiates, so the record only costs memory.",
                    "ja": "autograd は後で微分するかもしれない演算をすべて記録します。評価では微分しないので、"
                          "記録はメモリを使うだけです。"},
        "api": {"en": "`torch.no_grad()` and `torch.inference_mode()` are context managers that turn the "
                      "recording off.",
                "ja": "`torch.no_grad()` と `torch.inference_mode()` は記録を止めるコンテキストマネージャです。"}},
    "no-training-in-eval": {
        "lesson": _L3, "section": "Inference under autocast",
        "concept": {"en": "Evaluating measures the model as it is; any backward pass or step would change what "
                          "is being measured.",
                    "ja": "評価はモデルをそのまま測るものです。"
                          "backward やステップをするとモデル自体が変わってしまいます。"},
        "api": {"en": "An evaluation loop calls only the model and the loss function.",
                "ja": "評価ループで呼ぶのはモデルと損失関数だけです。"}},
}
GENERIC_CONCEPT = {"en": "The lesson teaches what this check looks for: read its section again, then compare it with "
                         "your code line by line.",
                   "ja": "このチェックが確かめることはレッスンで説明しています。該当する節を読み直してから、"
                         "コードと 1 行ずつ見比べましょう。"}


@dataclass(frozen=True)
class Rung:
    """One revealed rung: its words in both languages and where the lesson teaches it."""

    kind: str  # "concept" or "api"
    text: dict[str, str]
    lesson: str | None = None
    section: str | None = None


class LadderError(ValueError):
    """hints.toml cannot be read; the message names the table and the key."""


def read_folder(folder: Path) -> dict[str, dict[str, object]]:
    """The folder's hints.toml as check id -> table ({} when there is none)."""
    path = Path(folder) / LADDER_FILE
    if not path.is_file():
        return {}
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LadderError(f"{LADDER_FILE}: not valid TOML: {exc}") from exc
    return raw


def _table_problems(check: str, table: object) -> list[str]:
    where = f"{LADDER_FILE} [{check}]"
    if not isinstance(table, dict):
        return [f"{where}: must be a table"]
    problems = [f"{where}: unknown key '{key}' (known: {', '.join(sorted(KEYS))})" for key in table
                if key not in KEYS]
    for rung in RUNGS:
        text = table.get(rung)
        if text is None:
            continue
        if not isinstance(text, dict) or any(not isinstance(text.get(lang), str) or not text[lang].strip()
                                             for lang in LANGS):
            problems.append(f"{where}: '{rung}' needs a non-empty 'en' and 'ja'")
    for key in ("lesson", "section"):
        if key in table and not isinstance(table[key], str):
            problems.append(f"{where}: '{key}' must be a string")
    return problems


def lesson_sections(lessons: Path, lesson: str) -> list[str] | None:
    """The h2/h3 headings of a lesson's en.md (backticks dropped), None when there is no such lesson."""
    path = lessons / lesson / "en.md"
    if not path.is_file():
        return None
    fenced = False
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#{2,3} (.+)", line)):
            found.append(m.group(1).replace("`", "").strip())
    return found


def problems(folder: Path, slugs: set[str], lessons: Path | None) -> list[str]:
    """What `grader validate` reports about a folder's hints.toml: unknown checks, keys, languages, sections."""
    try:
        raw = read_folder(folder)
    except LadderError as exc:
        return [str(exc)]
    found = []
    for check, table in raw.items():
        if check not in slugs:
            found.append(f"{LADDER_FILE} [{check}]: no check of this exercise has that id "
                         f"(its checks: {', '.join(sorted(slugs))})")
        found += _table_problems(check, table)
        if isinstance(table, dict) and lessons is not None and isinstance(table.get("lesson"), str):
            sections = lesson_sections(lessons, table["lesson"])
            if sections is None:
                found.append(f"{LADDER_FILE} [{check}]: no lesson '{table['lesson']}' under {lessons.name}/")
            elif isinstance(table.get("section"), str) and table["section"].replace("`", "") not in sections:
                found.append(f"{LADDER_FILE} [{check}]: lesson '{table['lesson']}' has no heading "
                             f"'{table['section']}'")
    return found


def _grader_check(folder: Path, check: str) -> bool:
    """The folder uses the grader's own check of that id (amp.check("..."), amp.runs(), amp.weights()),
    not a check of its own that happens to share the id (bigger-checkpointing has its own "runs")."""
    factory = {"runs": "amp.runs(", "weights-match-reference": "amp.weights("}.get(check, f'amp.check("{check}"')
    tests = Path(folder) / "tests"
    return tests.is_dir() and any(factory in path.read_text(encoding="utf-8") for path in tests.rglob("*.py"))


def rungs(folder: Path, check: str, lesson: str | None) -> list[Rung]:
    """The rungs above the nudge for one check: the folder's, else the grader's, else the lesson's."""
    try:
        table = read_folder(folder).get(check)
    except LadderError:
        table = None
    if not isinstance(table, dict) or _table_problems(check, table):
        table = DEFAULTS.get(check) if _grader_check(folder, check) else None
    if table is None:
        return [Rung("concept", dict(GENERIC_CONCEPT), lesson)]
    where = (table.get("lesson") or lesson, table.get("section"))
    return [Rung(kind, dict(table[kind]), *where) for kind in RUNGS  # type: ignore[arg-type]
            if isinstance(table.get(kind), dict)]
