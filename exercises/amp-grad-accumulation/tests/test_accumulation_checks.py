"""Checks for amp-grad-accumulation: scaled micro-batches, one step per window, the outcome."""

from grader.amp.exercise_kit import amp_check, amp_fixtures
from grader.amp.findings import LoopSpec
from grader.amp.outcome import weights_match
from grader.testing import check

ACCUM_STEPS = 4
# 16 batches make 4 optimizer steps; a brisk learning rate lets a wrong cadence (a step after
# the first micro-batch) show in the weights, not only in the trace.
PARAMS = {"seed": 29, "data_seed": 5150, "batches": 16, "batch_size": 8, "lr": 0.5,
          "device": "cuda", "kwargs": {"accum_steps": ACCUM_STEPS}}
SPEC = LoopSpec(entry="train_one_epoch", accumulate=ACCUM_STEPS)


trained, reference, review = amp_fixtures("amp.train_one_epoch", PARAMS, SPEC)


@amp_check("accumulation-window")
def test_accumulation_window(review, lang):
    review.finding("accumulation-window").enforce(lang)


@amp_check("forward-in-autocast")
def test_forward_in_autocast(review, lang):
    review.finding("forward-in-autocast").enforce(lang)


@amp_check("backward-outside-autocast")
def test_backward_outside_autocast(review, lang):
    review.finding("backward-outside-autocast").enforce(lang)


@check("backward-on-scaled-loss",
       title={"en": "Every micro-batch's loss is scaled", "ja": "すべてのマイクロバッチの損失をス"
                                                                "ケールする"},
       hint={"en": "Write scaler.scale(loss / accum_steps).backward() for every batch.",
             "ja": "毎バッチ scaler.scale(loss / accum_steps).backward() と書きましょう。"})
def test_backward_on_scaled_loss(review, lang):
    review.finding("backward-on-scaled-loss").enforce(lang)


@check("step-through-scaler",
       title={"en": "The optimizer steps through the scaler", "ja": "オプティマイザは scaler 経由"
                                                                    "で step する"},
       hint={"en": "Step with scaler.step(optimizer), never optimizer.step() as well.",
             "ja": "scaler.step(optimizer) で step し、optimizer.step() を重ねて呼ばないでくださ"
                   "い。"})
def test_step_through_scaler(review, lang):
    review.finding("step-through-scaler").enforce(lang)


@amp_check("update-after-step")
def test_update_after_step(review, lang):
    review.finding("update-after-step").enforce(lang)


@check("zero-grad-each-iteration",
       title={"en": "Gradients are cleared after each step, not each micro-batch",
              "ja": "勾配は各マイクロバッチではなく各 step の後にクリアする"},
       hint={"en": "Call optimizer.zero_grad() right after scaler.update(), inside the "
                   "`if (i + 1) % accum_steps == 0:` block.",
             "ja": "`if (i + 1) % accum_steps == 0:` のブロックの中で、scaler.update() の直後に "
                   "optimizer.zero_grad() を呼びましょう。"})
def test_zero_grad_each_step(review, lang):
    review.finding("zero-grad-each-iteration").enforce(lang)


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
       title={"en": "Accumulates like the reference", "ja": "模範解答と同じように累積する"},
       hint={"en": "Divide by accum_steps, and step every accum_steps batches.",
             "ja": "accum_steps で割り、accum_steps バッチごとに step しましょう。"},
       depends=["runs"])
def test_weights_match_reference(trained, reference, learner, lang):
    weights_match(trained, reference, line=learner.line_of("train_one_epoch")).enforce(lang)
