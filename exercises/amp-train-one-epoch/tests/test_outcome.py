"""Outcome checks for amp-train-one-epoch: the mean loss is returned and the weights match the reference."""

from grader.amp.exercise_kit import amp_check
from grader.amp.outcome import weights_match
from grader.testing import check


@amp_check("mean-loss-returned", depends=["runs"])
def test_returns_mean_loss(review, lang):
    review.finding("mean-loss-returned").enforce(lang)


@check("weights-match-reference",
       title={"en": "Trains the model like the reference", "ja": "模範解答と同じように学習する"},
       hint={"en": "Step the optimizer once per batch through the scaler, and clear the gradients "
                   "every batch.",
             "ja": "オプティマイザはバッチごとに 1 回、scaler 経由で step し、勾配も毎バッチクリアしましょう。"},
       depends=["runs"])
def test_weights_match_reference(traced, reference, learner, lang):
    weights_match(traced, reference, line=learner.line_of("train_one_epoch")).enforce(lang)
