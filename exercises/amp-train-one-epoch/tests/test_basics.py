"""Outcome checks for amp-train-one-epoch: it runs, trains every batch, returns the mean loss, matches the reference."""

import math

import pytest
import torch

from grader.scenarios.training import run_epoch
from grader.testing import Feedback, check

# A data seed the learner never sees: the outcome is compared on fresh data.
PARAMS = {"seed": 7, "data_seed": 20261130, "batches": 6, "batch_size": 8}
# A GPU-style run: without CUDA the AMP scenario maps the learner's "cuda" (autocast, scaler,
# .cuda()) to the CPU instead of letting torch silently switch AMP off; learner errors raise.
LEARNER_PARAMS = {**PARAMS, "device": "cuda", "raise_errors": True}
# float16 (a "cuda" autocast mapped to the CPU) and bfloat16 runs of correct loops differ by
# about 2.5e-3 here; real mistakes (double step, scaled clipping, skipped batches) by 5e-2 and more.
TOLERANCE = 1e-2


@pytest.fixture(scope="module")
def trained(learner):
    return learner.scenario("amp.train_one_epoch", **LEARNER_PARAMS)


@pytest.fixture(scope="module")
def reference(solution):
    return run_epoch(solution.train_one_epoch, PARAMS)


@check("runs", title={"en": "train_one_epoch runs", "ja": "train_one_epoch が動く"},
       hint={"en": "Run your function on a tiny model before you submit.",
             "ja": "提出する前に小さなモデルで関数を動かしてみましょう。"})
def test_runs(trained):
    assert trained is not None


@check("mean-loss-returned",
       title={"en": "Returns the mean loss over the batches", "ja": "バッチ全体の平均損失を返す"},
       hint={"en": "Add up loss.item() for every batch and divide by the number of batches.",
             "ja": "各バッチの loss.item() を合計し、バッチ数で割りましょう。"},
       depends=["runs"])
def test_returns_mean_loss(trained, learner):
    returned, losses = trained["returned"], trained["losses"]
    line = learner.line_of("train_one_epoch")
    if isinstance(returned, torch.Tensor) and returned.numel() == 1:
        returned = float(returned)
    if not isinstance(returned, (int, float)) or isinstance(returned, bool):
        raise Feedback({"en": f"train_one_epoch returned {type(returned).__name__}, not a float.",
                        "ja": f"train_one_epoch の戻り値が float ではなく {type(returned).__name__} です。"},
                       line=line)
    if len(losses) != trained["batches"]:
        raise Feedback({"en": f"The loss was computed {len(losses)} times for {trained['batches']} batches; "
                              "compute it once per batch.",
                        "ja": f"{trained['batches']} バッチに対して損失が {len(losses)} 回計算されました。"
                              "バッチごとに 1 回だけ計算してください。"}, line=line)
    expected = sum(losses) / len(losses)
    if not math.isclose(returned, expected, rel_tol=1e-3, abs_tol=1e-4):
        raise Feedback({"en": f"Returned {returned:.4f}, but the mean of the batch losses was {expected:.4f}.",
                        "ja": f"戻り値は {returned:.4f} ですが、バッチ損失の平均は {expected:.4f} でした。"},
                       line=line)


@check("weights-match-reference",
       title={"en": "Trains the model like the reference", "ja": "模範解答と同じように学習する"},
       hint={"en": "Step the optimizer once per batch through the scaler, and clear the gradients every batch.",
             "ja": "オプティマイザはバッチごとに 1 回、scaler 経由で step し、勾配も毎バッチクリアしましょう。"},
       depends=["runs"])
def test_weights_match_reference(trained, reference, learner):
    worst_name, worst = "", 0.0
    for name, expected in reference["state"].items():
        got = trained["state"][name]
        gap = float((got - expected).abs().max())
        if gap > worst:
            worst_name, worst = name, gap
    if worst > TOLERANCE:
        raise Feedback({"en": f"After one epoch the weights differ from the reference's (largest gap {worst:.3g} "
                              f"in {worst_name}).",
                        "ja": f"1 エポック後の重みが模範解答と異なります（{worst_name} で最大 {worst:.3g} の差）。"},
                       line=learner.line_of("train_one_epoch"))
