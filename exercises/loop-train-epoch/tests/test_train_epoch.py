"""Checks for loop-train-epoch: train mode, zero_grad/backward/step each batch, mean loss, weights."""

import math

import pytest
import torch

from grader.author import (
    Feedback,
    NotChecked,
    call_line,
    check,
    count,
    loop_line,
    return_line,
    run_train_epoch,
    windows,
)

# Seeds the learner never sees: the outcome is compared on fresh weights and data.
PARAMS = {"seed": 3, "data_seed": 20261130, "dropout_seed": 11, "batches": 5, "batch_size": 8}
ENTRY = "train_one_epoch"


@pytest.fixture(scope="module")
def trained(learner):
    return learner.scenario("loop.train_epoch", **PARAMS)


@pytest.fixture(scope="module")
def reference(solution):
    return run_train_epoch(solution.train_one_epoch, PARAMS)


def line_of_call(learner, name):
    """The learner's line that calls `name` inside train_one_epoch, else its loop (where a per-batch
    call belongs), else the def line."""
    return call_line(learner.source, ENTRY, name, loop_line(learner.source, ENTRY, learner.line_of(ENTRY)))


# given=True: the untouched starter already passes this check; it earns nothing while it holds and
# costs its point when broken (credit is for the learner's work, and failing work never shows 100 %).
@check("runs", given=True, title={"en": "train_one_epoch runs", "ja": "train_one_epoch が動く"},
       hint={"en": "Run your function on a tiny model before you submit.",
             "ja": "提出する前に小さなモデルで関数を動かしてみましょう。"})
def test_runs(trained):
    assert trained is not None


@check("train-mode", title={"en": "Trains in training mode", "ja": "学習モードで学習する"},
       hint={"en": "Call model.train() at the start of the function.",
             "ja": "関数の最初で model.train() を呼びましょう。"},
       depends=["runs"])
def test_train_mode(trained, learner):
    flags = trained["train_flags"]
    if not flags:  # the subject never happened: no credit for a model that never ran
        raise NotChecked({"en": "Not checked: the model was never called.",
                          "ja": "未確認：モデルが一度も呼ばれていません。"})
    if not all(flags):
        raise Feedback({"en": f"{flags.count(False)} of {len(flags)} forward passes ran in eval mode: "
                              "Dropout was off while training. Call model.train() first.",
                        "ja": f"{len(flags)} 回の順伝播のうち {flags.count(False)} 回が評価モードで実行され、"
                              "学習中に Dropout が無効でした。最初に model.train() を呼びましょう。"},
                       line=learner.line_of(ENTRY))


@check("moves-batch", given=True,
       title={"en": "Moves each batch to `device`", "ja": "各バッチを `device` に移す"},
       hint={"en": "tensor.to(device) returns the moved tensor: keep it (inputs = inputs.to(device)) and "
                   "give that to the model.",
             "ja": "`tensor.to(device)` は移した後のテンソルを返します。`inputs = inputs.to(device)` のように"
                   "受け取り、それをモデルに渡しましょう。"},
       depends=["runs"])
def test_moves_batch(trained, learner):
    # The grader runs on the CPU, where an unmoved batch trains the same; on a GPU it would stop.
    if not trained["train_flags"]:
        raise NotChecked({"en": "Not checked: the model was never called.",
                          "ja": "未確認：モデルが一度も呼ばれていません。"})
    unmoved = trained["unmoved_batches"]
    if unmoved:
        raise Feedback({"en": f"{unmoved} times a tensor straight from the loader (inputs or targets) "
                              "reached the model or the loss without being moved to `device`: on a GPU "
                              "this stops with "
                              "\"Expected all tensors to be on the same device\".",
                        "ja": f"ローダーから受け取ったテンソル（入力または正解ラベル）が `device` に移されないまま、"
                              f"モデルか損失に {unmoved} 回渡されました。GPU では \"Expected all tensors to be on "
                              "the same device\" で停止します。"},
                       line=line_of_call(learner, "model"))


@check("zero-grad-each-iteration",
       title={"en": "Clears the gradients every batch", "ja": "バッチごとに勾配をクリアする"},
       hint={"en": "backward() adds into .grad: call optimizer.zero_grad() before each backward().",
             "ja": "backward() は .grad に足し込みます。各 backward() の前に optimizer.zero_grad() を呼びましょう。"},
       depends=["runs"])
def test_zero_grad(trained, learner):
    if not (count(trained["events"], "backward") + count(trained["events"], "backward-on-old-grad")):
        raise NotChecked({"en": "Not checked: backward() never ran.",
                          "ja": "未確認：backward() が一度も実行されていません。"})
    piled = count(trained["events"], "backward-on-old-grad")
    if piled:
        raise Feedback({"en": f"{piled} backward() calls added to the previous batch's gradients, "
                              "so each step used stale gradients too.",
                        "ja": f"{piled} 回の backward() が前のバッチの勾配に足し込まれ、"
                              "各更新で古い勾配も使われました。"},
                       line=line_of_call(learner, "backward"))


@check("step-each-batch",
       title={"en": "Steps the optimizer once per batch, after backward",
              "ja": "バッチごとに 1 回、逆伝播のあとでオプティマイザのステップを実行する"},
       hint={"en": "Each iteration: zero_grad(), forward and loss, backward(), step().",
             "ja": "各イテレーションで zero_grad()、順伝播と損失、backward()、step() の順です。"},
       depends=["runs"])
def test_step_each_batch(trained, learner):
    events, batches = trained["events"], trained["batches"]
    steps = count(events, "step") + count(events, "step-without-grad")
    line = line_of_call(learner, "step")
    if count(events, "step-without-grad"):
        raise Feedback({"en": "optimizer.step() ran with no gradients: they were cleared between "
                              "backward() and step(). Clear them before backward() instead.",
                        "ja": "勾配がない状態で optimizer.step() が実行されました。backward() と step() の間で"
                              "勾配が消されています。backward() の前に消してください。"},
                       line=line_of_call(learner, "zero_grad"))
    if steps != batches:
        raise Feedback({"en": f"optimizer.step() ran {steps} times for {batches} batches; run it once per batch.",
                        "ja": f"{batches} バッチに対して optimizer.step() が {steps} 回実行されました。"
                              "バッチごとに 1 回実行してください。"}, line=line)
    if any(not group[-1].startswith("step") or len(group) != 2 for group in windows(events)[:steps]):
        raise Feedback({"en": "Each optimizer.step() should follow exactly one backward() of the same batch.",
                        "ja": "optimizer.step() は、同じバッチの backward() 1 回のあとに実行してください。"},
                       line=line)


@check("mean-loss-returned",
       title={"en": "Returns the mean loss over the batches", "ja": "バッチ全体の平均損失を返す"},
       hint={"en": "Add up loss.item() for every batch and divide by the number of batches.",
             "ja": "各バッチの loss.item() を合計し、バッチ数で割りましょう。"},
       depends=["runs"])
def test_mean_loss(trained, learner):
    returned, losses = trained["returned"], trained["losses"]
    line = return_line(learner.source, ENTRY, learner.line_of(ENTRY))
    if isinstance(returned, torch.Tensor):
        # A tensor built from `loss` (not loss.item()) keeps every batch's autograd graph alive.
        raise Feedback({"en": "train_one_epoch returned a tensor, not a Python float: add up loss.item(), "
                              "not loss, so no batch's autograd graph is kept alive.",
                        "ja": "train_one_epoch の戻り値が Python の float ではなくテンソルです。loss ではなく "
                              "loss.item() を合計すれば、各バッチの計算グラフが残りません。"},
                       line=line)
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
    if math.isclose(returned, expected, rel_tol=1e-4, abs_tol=1e-5):
        return
    en = f"Returned {returned:.4f}, but the mean of the batch losses was {expected:.4f}."
    ja = f"戻り値は {returned:.4f} ですが、バッチ損失の平均は {expected:.4f} でした。"
    if math.isclose(returned, sum(losses), rel_tol=1e-4):
        en += " That is the sum: divide by the number of batches."
        ja += "これは合計です。バッチ数で割りましょう。"
    raise Feedback({"en": en, "ja": ja}, line=line)


@check("weights-match-reference",
       title={"en": "Trains the model like the reference", "ja": "模範解答と同じように学習する"},
       hint={"en": "One zero_grad(), backward() and step() per batch, in training mode.",
             "ja": "学習モードで、バッチごとに zero_grad()、backward()、step() を 1 回ずつ行いましょう。"},
       depends=["runs"])
def test_weights(trained, reference, learner):
    worst_name, worst = "", 0.0
    for name, expected in reference["state"].items():
        gap = float((trained["state"][name] - expected).abs().max())
        if gap > worst:
            worst_name, worst = name, gap
    if worst > 1e-5:
        raise Feedback({"en": f"After one epoch the weights differ from the reference's "
                              f"(largest gap {worst:.3g} in {worst_name}).",
                        "ja": f"1 エポック後の重みが模範解答と異なります（{worst_name} で最大 {worst:.3g} の差）。"},
                       line=learner.line_of(ENTRY))
