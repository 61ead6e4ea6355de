"""Checks for amp-bf16: bfloat16 autocast with no scaler is right; float16 with no scaler is not."""

from grader.amp.exercise_kit import amp_check, amp_fixtures
from grader.amp.findings import LoopSpec
from grader.amp.outcome import weights_match
from grader.testing import check

# No scaler is passed; a GPU-style request (the CPU stands in for CUDA on CPU graders).
PARAMS = {"seed": 17, "data_seed": 777, "batches": 6, "batch_size": 8, "device": "cuda",
          "scaler": False}
SPEC = LoopSpec(entry="train_one_epoch", require_scaler=False)


trained, reference, review = amp_fixtures("amp.train_bf16", PARAMS, SPEC)


@amp_check("forward-in-autocast")
def test_forward_in_autocast(review, lang):
    review.finding("forward-in-autocast").enforce(lang)


@amp_check("bf16-autocast")
def test_bf16_autocast(review, lang):
    review.finding("bf16-autocast").enforce(lang)


@check("backward-on-scaled-loss",
       title={"en": "No float16 backward without a GradScaler",
              "ja": "GradScaler なしで float16 の backward をしない"},
       hint={"en": "Autocast to bfloat16, which needs no loss scaling; float16 would need a "
                   "GradScaler.",
             "ja": "損失スケーリングが不要な bfloat16 で autocast しましょう。float16 なら "
                   "GradScaler が必要です。"})
def test_no_unscaled_float16(review, lang):
    review.finding("backward-on-scaled-loss").enforce(lang)


@amp_check("backward-outside-autocast")
def test_backward_outside_autocast(review, lang):
    review.finding("backward-outside-autocast").enforce(lang)


@amp_check("zero-grad-each-iteration")
def test_zero_grad_each_iteration(review, lang):
    review.finding("zero-grad-each-iteration").enforce(lang)


@amp_check("fp32-master-weights")
def test_fp32_master_weights(review, lang):
    review.finding("fp32-master-weights").enforce(lang)


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
       hint={"en": "One optimizer.step() per batch after loss.backward(), gradients cleared "
                   "every batch.",
             "ja": "バッチごとに loss.backward() の後で optimizer.step() を 1 回、勾配も毎バッチ"
                   "クリアしましょう。"},
       depends=["runs"])
def test_weights_match_reference(trained, reference, learner, lang):
    weights_match(trained, reference, line=learner.line_of("train_one_epoch")).enforce(lang)
