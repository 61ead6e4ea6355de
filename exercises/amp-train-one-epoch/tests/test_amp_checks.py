"""AMP protocol checks for amp-train-one-epoch: one check per mistake, naming the line."""

from grader.amp.exercise_kit import amp_check
from grader.testing import check

# The `review` fixture (conftest.py) traces the learner's loop once for every check here.


@check("runs", title={"en": "train_one_epoch runs to the end", "ja": "train_one_epoch が最後まで動く"},
       hint={"en": "Run your function on a tiny model before you submit.",
             "ja": "提出する前に小さなモデルで関数を動かしてみましょう。"})
def test_runs(review, lang):
    review.runs().enforce(lang)


@amp_check("forward-in-autocast")
def test_forward_in_autocast(review, lang):
    review.finding("forward-in-autocast").enforce(lang)


@amp_check("backward-outside-autocast")
def test_backward_outside_autocast(review, lang):
    review.finding("backward-outside-autocast").enforce(lang)


@amp_check("backward-on-scaled-loss")
def test_backward_on_scaled_loss(review, lang):
    review.finding("backward-on-scaled-loss").enforce(lang)


@amp_check("step-through-scaler")
def test_step_through_scaler(review, lang):
    review.finding("step-through-scaler").enforce(lang)


@amp_check("update-after-step")
def test_update_after_step(review, lang):
    review.finding("update-after-step").enforce(lang)


@amp_check("zero-grad-each-iteration")
def test_zero_grad_each_iteration(review, lang):
    review.finding("zero-grad-each-iteration").enforce(lang)


@amp_check("unscale-before-clip")
def test_unscale_before_clip(review, lang):
    review.finding("unscale-before-clip").enforce(lang)


@amp_check("fp32-master-weights")
def test_fp32_master_weights(review, lang):
    review.finding("fp32-master-weights").enforce(lang)


@amp_check("one-scaler")
def test_one_scaler(review, lang):
    review.finding("one-scaler").enforce(lang)


@amp_check("trains-every-batch")
def test_trains_every_batch(review, lang):
    review.finding("trains-every-batch").enforce(lang)
