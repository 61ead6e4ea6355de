"""Checks for amp-clip-gradients: unscale_ before clipping, the protocol around it, the outcome."""

from grader.amp.exercise_kit import amp_check, amp_fixtures
from grader.amp.findings import LoopSpec
from grader.amp.outcome import weights_match
from grader.testing import check

# max_norm is small enough that clipping changes every step on this model, so clipping the
# still-scaled gradients (or not clipping) shows in the weights too.
PARAMS = {"seed": 21, "data_seed": 9001, "batches": 6, "batch_size": 8, "device": "cuda",
          "kwargs": {"max_norm": 0.25}}
SPEC = LoopSpec(entry="train_one_epoch", require_clip=True)


trained, reference, review = amp_fixtures("amp.train_one_epoch", PARAMS, SPEC)


@amp_check("unscale-before-clip")
def test_unscale_before_clip(review, lang):
    review.finding("unscale-before-clip").enforce(lang)


@amp_check("forward-in-autocast")
def test_forward_in_autocast(review, lang):
    review.finding("forward-in-autocast").enforce(lang)


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


@check("runs", title={"en": "train_one_epoch runs to the end", "ja": "train_one_epoch が最後まで動"
                                                                     "く"},
       hint={"en": "Fix the mistake named above first; the rest follows.",
             "ja": "まず上で指摘された誤りを直しましょう。"})
def test_runs(review, lang):
    review.runs().enforce(lang)


@amp_check("mean-loss-returned", depends=["runs"])
def test_mean_loss_returned(review, lang):
    review.finding("mean-loss-returned").enforce(lang)


@check("weights-match-reference",
       title={"en": "Clips like the reference", "ja": "模範解答と同じようにクリップする"},
       hint={"en": "Clip model.parameters() to the max_norm argument, after scaler.unscale_.",
             "ja": "scaler.unscale_ の後で、引数の max_norm で model.parameters() をクリップしまし"
                   "ょう。"},
       depends=["runs"])
def test_weights_match_reference(trained, reference, learner, lang):
    weights_match(trained, reference, line=learner.line_of("train_one_epoch")).enforce(lang)
