"""Checks for loop-evaluate: eval mode, no_grad, the mean loss and the accuracy over samples."""

import math

import pytest
import torch

from grader.author import Feedback, call_line, check, evaluation_reference, return_line

PARAMS = {"seed": 8, "data_seed": 20261130, "batches": 5, "batch_size": 8, "eval_batch_size": 7}
ENTRY = "evaluate"


@pytest.fixture(scope="module")
def run(learner):
    return learner.scenario("loop.evaluate", **PARAMS)


@pytest.fixture(scope="module")
def expected():
    return evaluation_reference(PARAMS)


def as_float(value):
    """A Python number as a float; None for anything else, a tensor included (the prompt asks for floats)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


# given=True: the untouched starter already passes this check; it earns nothing while it holds and
# costs its point when broken (credit is for the learner's work, and failing work never shows 100 %).
@check("returns-pair", given=True,
       title={"en": "evaluate returns (mean_loss, accuracy)", "ja": "`evaluate` が `(mean_loss, accuracy)` を返す"},
       hint={"en": "Return a tuple of two Python numbers: the mean loss per batch first, then the accuracy.",
             "ja": "Python の数 2 つのタプルを返しましょう。1 つ目はバッチあたりの平均損失、2 つ目は正解率です。"})
def test_returns_pair(run, learner):
    returned = run["returned"]
    if isinstance(returned, list) and any(isinstance(v, torch.Tensor) for v in returned):
        raise Feedback({"en": "evaluate returned tensors, not Python numbers: add up loss.item() and the "
                              "count's .item(), so the pair is (float, float).",
                        "ja": "evaluate の戻り値が Python の数値ではなくテンソルです。`loss.item()` や個数の `.item()` を"
                              "足し合わせ、`(float, float)` のペアを返しましょう。"},
                       line=return_line(learner.source, ENTRY, learner.line_of(ENTRY)))
    ok = isinstance(returned, list) and len(returned) == 2 and all(as_float(v) is not None for v in returned)
    if not ok:
        shown = type(returned).__name__ if not isinstance(returned, list) else f"{len(returned)} values"
        raise Feedback({"en": f"evaluate returned {shown}; expected a pair of numbers (mean_loss, accuracy).",
                        "ja": f"evaluate の戻り値が {shown} です。数値のペア `(mean_loss, accuracy)` を返してください。"},
                       line=return_line(learner.source, ENTRY, learner.line_of(ENTRY)))


@check("eval-mode", title={"en": "Evaluates in evaluation mode", "ja": "評価モードで評価する"},
       hint={"en": "Call model.eval() before the loop.", "ja": "ループの前に model.eval() を呼びましょう。"},
       depends=["returns-pair"])
def test_eval_mode(run, learner):
    flags = run["train_flags"]
    if any(flags):
        raise Feedback({"en": f"{sum(flags)} of {len(flags)} forward passes ran in training mode, "
                              "so Dropout kept dropping values. Call model.eval() first.",
                        "ja": f"{len(flags)} 回の順伝播のうち {sum(flags)} 回が学習モードで、Dropout が値を"
                              "落とし続けました。最初に model.eval() を呼びましょう。"},
                       line=call_line(learner.source, ENTRY, "train", learner.line_of(ENTRY)))


@check("no-grad", title={"en": "Runs without recording gradients", "ja": "勾配を記録せずに実行する"},
       hint={"en": "Put the loop inside `with torch.no_grad():`.", "ja": "ループを `with torch.no_grad():` の中に入れましょう。"},
       depends=["returns-pair"])
def test_no_grad(run, learner):
    recording = sum(run["grad_flags"])
    if recording:
        raise Feedback({"en": f"Autograd recorded {recording} forward passes that no backward() will use. "
                              "Wrap the loop in `with torch.no_grad():`.",
                        "ja": f"autograd が、backward() で使われない {recording} 回の順伝播を記録しました。"
                              "ループを `with torch.no_grad():` で包みましょう。"},
                       line=call_line(learner.source, ENTRY, "model", learner.line_of(ENTRY)))


@check("moves-batch", given=True,
       title={"en": "Moves each batch to `device`", "ja": "各バッチを `device` に移す"},
       hint={"en": "tensor.to(device) returns the moved tensor: keep it and give that to the model.",
             "ja": "`tensor.to(device)` は移した後のテンソルを返します。受け取って、それをモデルに渡しましょう。"},
       depends=["returns-pair"])
def test_moves_batch(run, learner):
    # The grader runs on the CPU, where an unmoved batch gives the same numbers; a GPU would stop.
    if run["unmoved_batches"]:
        raise Feedback({"en": f"{run['unmoved_batches']} times a tensor straight from the loader (inputs or targets) "
                              "reached the model or the loss without being moved to `device`: on a GPU "
                              "this stops with "
                              "\"Expected all tensors to be on the same device\".",
                        "ja": f"ローダーから受け取ったテンソル（入力または正解ラベル）が `device` に移されないまま、"
                              f"モデルか損失に {run['unmoved_batches']} 回渡されました。GPU では \"Expected all tensors to be on "
                              "the same device\" で停止します。"},
                       line=call_line(learner.source, ENTRY, "model", learner.line_of(ENTRY)))


@check("mean-loss", title={"en": "Returns the mean loss over the batches", "ja": "バッチ全体の平均損失を返す"},
       hint={"en": "Add up loss.item() per batch and divide by the number of batches.",
             "ja": "バッチごとの loss.item() を合計し、バッチ数で割りましょう。"},
       depends=["eval-mode"])
def test_mean_loss(run, expected, learner):
    got = as_float(run["returned"][0])
    if not math.isclose(got, expected["loss"], rel_tol=1e-4, abs_tol=1e-5):
        raise Feedback({"en": f"mean_loss is {got:.4f}; the mean of the batch losses is {expected['loss']:.4f}.",
                        "ja": f"mean_loss が {got:.4f} ですが、バッチ損失の平均は {expected['loss']:.4f} です。"},
                       line=return_line(learner.source, ENTRY, learner.line_of(ENTRY)))


@check("accuracy", title={"en": "Returns the accuracy over all samples", "ja": "すべての例に対する正解率を返す"},
       hint={"en": "Count right predictions and samples over the whole loader; divide at the end.",
             "ja": "loader 全体で正解数と例の数を数え、最後に割りましょう。"},
       depends=["eval-mode"])
def test_accuracy(run, expected, learner):
    got, right = as_float(run["returned"][1]), expected["accuracy"]
    if math.isclose(got, right, abs_tol=1e-6):
        return
    en = f"accuracy is {got:.4f}; {right:.4f} of the samples were predicted right."
    ja = f"accuracy が {got:.4f} ですが、正しく予測された例の割合は {right:.4f} です。"
    if math.isclose(got, 100 * right, abs_tol=1e-4):
        en += " Return a fraction between 0 and 1, not a percentage."
        ja += "百分率ではなく、0 から 1 の割合で返しましょう。"
    elif math.isclose(got, expected["batch_accuracy_mean"], abs_tol=1e-6):
        en += " That is the mean of the batches' accuracies, but the last batch is smaller: count samples."
        ja += "これはバッチごとの正解率の平均ですが、最後のバッチは小さいので、サンプル数で数えましょう。"
    raise Feedback({"en": en, "ja": ja}, line=return_line(learner.source, ENTRY, learner.line_of(ENTRY)))
