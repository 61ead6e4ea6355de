"""Checks for amp-fix-the-loop: each AMP mistake by name and line, then the outcome."""

from grader.amp.exercise_kit import amp_check, amp_fixtures
from grader.amp.findings import LoopSpec
from grader.amp.outcome import weights_match
from grader.testing import check

# GPU-style request (mapped to the CPU on CPU graders); a data seed the learner never sees.
PARAMS = {"seed": 13, "data_seed": 4242, "batches": 6, "batch_size": 8, "device": "cuda"}
SPEC = LoopSpec(entry="train_one_epoch")


trained, reference, review = amp_fixtures("amp.train_one_epoch", PARAMS, SPEC)


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


@amp_check("fp32-master-weights")
def test_fp32_master_weights(review, lang):
    review.finding("fp32-master-weights").enforce(lang)


@amp_check("one-scaler")
def test_one_scaler(review, lang):
    review.finding("one-scaler").enforce(lang)


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
       title={"en": "Trains the model like the reference", "ja": "模範解答と同じように学習する"},
       hint={"en": "Fix the AMP checks above; a correct loop ends with the reference's weights.",
             "ja": "上の AMP チェックを直しましょう。正しいループなら模範解答と同じ重みになりま"
                   "す。"},
       depends=["runs"])
def test_weights_match_reference(trained, reference, learner, lang):
    weights_match(trained, reference, line=learner.line_of("train_one_epoch")).enforce(lang)
