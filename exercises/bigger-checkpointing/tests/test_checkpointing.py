"""Checks for bigger-checkpointing: same output and gradients as a plain pass, every block recomputed."""

import pytest
import torch

from grader.author import Feedback, call_line, check, plain_reference

PARAMS = {"seed": 6, "data_seed": 20261130, "blocks": 4, "batch": 6}
ENTRY = "checkpointed_forward"
REENTRANT_WARNINGS = ("use_reentrant", "None of the inputs have requires_grad")


@pytest.fixture(scope="module")
def run(learner):
    return learner.scenario("bigger.checkpointing", **PARAMS)


@pytest.fixture(scope="module")
def reference():
    return plain_reference(PARAMS)


def checkpoint_line(learner):
    return call_line(learner.source, ENTRY, "checkpoint", learner.line_of(ENTRY))


# given=True: the untouched starter already passes this check; it earns nothing while it holds and
# costs its point when broken (credit is for the learner's work, and failing work never shows 100 %).
@check("runs", given=True, title={"en": "checkpointed_forward returns a tensor of the right shape",
                      "ja": "checkpointed_forward が正しい形状のテンソルを返す"},
       hint={"en": "Return the output of the last block.", "ja": "最後のブロックの出力を返しましょう。"})
def test_runs(run, reference, learner):
    out = run["out"]
    if out is None:
        raise Feedback({"en": f"checkpointed_forward returned {run['type']}, not a tensor.",
                        "ja": f"checkpointed_forward の戻り値がテンソルではなく {run['type']} です。"},
                       line=learner.line_of(ENTRY))
    if out.shape != reference["out"].shape:
        raise Feedback({"en": f"The output has shape {tuple(out.shape)}; expected {tuple(reference['out'].shape)}.",
                        "ja": f"出力の形状が {tuple(out.shape)} です。{tuple(reference['out'].shape)} になるはずです。"},
                       line=learner.line_of(ENTRY))


@check("output-matches", given=True, title={"en": "The output equals a plain forward pass", "ja": "出力がふつうの順伝播と一致する"},
       hint={"en": "Feed each block's output to the next block, in order.",
             "ja": "各ブロックの出力を、順番どおりに次のブロックへ渡しましょう。"},
       depends=["runs"])
def test_output(run, reference, learner):
    if not torch.allclose(run["out"], reference["out"], rtol=1e-5, atol=1e-6):
        gap = float((run["out"] - reference["out"]).abs().max())
        raise Feedback({"en": f"The output differs from running the blocks one after another (largest gap {gap:.3g}).",
                        "ja": f"ブロックを順に実行した結果と出力が異なります（最大 {gap:.3g} の差）。"},
                       line=learner.line_of(ENTRY))


@check("gradients-match", given=True,
       title={"en": "Every parameter gets the same gradient as without checkpointing",
              "ja": "すべてのパラメータがチェックポイントなしと同じ勾配を得る"},
       hint={"en": "Gradients flow through checkpoint only if nothing cuts the graph: no detach(), no no_grad().",
             "ja": "勾配が checkpoint を通って流れるのは、detach() や no_grad() で計算グラフを切らないときだけです。"},
       depends=["output-matches"])
def test_gradients(run, reference, learner):
    reentrant = any(marker in w for w in run["warnings"] for marker in REENTRANT_WARNINGS)
    missing = [name for name, grad in run["grads"].items() if grad is None]
    if run["backward_error"] or missing:
        en = "backward() could not reach the blocks' parameters" + \
            (f" ({len(missing)} of {len(run['grads'])} got no gradient)." if missing else ".")
        ja = "backward() がブロックのパラメータまで届きませんでした" + \
            (f" ({len(run['grads'])} 個中 {len(missing)} 個に勾配がありません)。" if missing else "。")
        if reentrant:
            en += " The reentrant checkpoint gives no gradients when the input does not require grad: " \
                  "pass use_reentrant=False."
            ja += "リエントラント方式のチェックポイントは、入力が勾配を必要としないと勾配を返しません。" \
                  "use_reentrant=False を渡しましょう。"
        raise Feedback({"en": en, "ja": ja}, line=checkpoint_line(learner))
    for name, expected in reference["grads"].items():
        if not torch.allclose(run["grads"][name], expected, rtol=1e-4, atol=1e-6):
            raise Feedback({"en": f"The gradient of {name} differs from the one without checkpointing.",
                            "ja": f"{name} の勾配がチェックポイントなしの場合と異なります。"},
                           line=checkpoint_line(learner))


@check("every-block-checkpointed",
       title={"en": "Every block is checkpointed (its forward runs again during backward)",
              "ja": "すべてのブロックがチェックポイントされている（逆伝播で順伝播が再実行される）"},
       hint={"en": "Every block of the loop goes through checkpoint, not only some of them.",
             "ja": "一部だけでなく、ループのすべてのブロックを checkpoint に通しましょう。"},
       depends=["gradients-match"])
def test_every_block(run, learner):
    forward, total = run["calls_forward"], run["calls_total"]
    if any(count != 1 for count in forward):
        raise Feedback({"en": f"Each block should run once in the forward pass; they ran {forward} times.",
                        "ja": f"順伝播で各ブロックは 1 回ずつ実行されるはずですが、{forward} 回でした。"},
                       line=learner.line_of(ENTRY))
    plain = [i for i, count in enumerate(total) if count < 2]
    if plain:
        raise Feedback({"en": f"Blocks {plain} ran only once: their activations were stored, not recomputed. "
                              "Wrap every block in checkpoint(...).",
                        "ja": f"ブロック {plain} は 1 回しか実行されず、活性化が再計算されずに保持されました。"
                              "すべてのブロックを `checkpoint(...)` でラップしましょう。"},
                       line=checkpoint_line(learner))


@check("use-reentrant-false",
       title={"en": "Passes use_reentrant=False explicitly", "ja": "use_reentrant=False を明示的に渡す"},
       hint={"en": "use_reentrant is a keyword argument of checkpoint; PyTorch wants it stated.",
             "ja": "use_reentrant は checkpoint のキーワード引数です。PyTorch は明示するよう求めています。"},
       depends=["every-block-checkpointed"])
def test_use_reentrant(run, learner):
    noted = [w for w in run["warnings"] if any(marker in w for marker in REENTRANT_WARNINGS)]
    if noted:
        raise Feedback({"en": f"PyTorch warned: \"{noted[0][:120]}\". Pass use_reentrant=False.",
                        "ja": f"PyTorch が警告しました：「{noted[0][:120]}」。`use_reentrant=False` を渡しましょう。"},
                       line=checkpoint_line(learner))
