"""Checks for tensors-autograd: a gradient through backward(), then gradient descent that clears .grad."""

import torch

from grader.author import Feedback, LearnerError, check

N, D = 12, 5


def problem(seed: int):
    """x, y and a starting w from a seed the learner never sees."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(N, D, generator=generator)
    y = torch.randn(N, generator=generator)
    w = torch.randn(D, generator=generator)
    return w, x, y


def exact_gradient(w, x, y):
    # d/dw mean((xw - y)^2) = 2/n * xᵀ(xw - y): computed by hand, independent of autograd.
    return 2.0 / x.shape[0] * x.T @ (x @ w - y)


def descend_reference(w, x, y, lr, steps, *, clear=True):
    """Gradient descent by hand; clear=False reproduces the gradients piling up in .grad."""
    grad_sum = torch.zeros_like(w)
    for _ in range(steps):
        grad = exact_gradient(w, x, y)
        grad_sum = grad if clear else grad_sum + grad
        w = w - lr * grad_sum
    return w


# given=True: the untouched starter already passes this check; it earns nothing while it holds and
# costs its point when broken (credit is for the learner's work, and failing work never shows 100 %).
@check("gradient-shape", given=True,
       title={"en": "gradient returns a tensor shaped like w", "ja": "gradient が w と同じ形状のテンソルを返す"},
       hint={"en": "After loss.backward(), the gradient is in the .grad of the tensor that requires grad.",
             "ja": "loss.backward() のあと、勾配は requires_grad のテンソルの .grad に入っています。"})
def test_gradient_shape(learner):
    w, x, y = problem(11)
    got = learner.call("gradient", w, x, y)
    if not isinstance(got, torch.Tensor):
        raise Feedback({"en": f"gradient returned {type(got).__name__}, not a tensor. "
                              "Did loss.backward() run, and did you return w.grad?",
                        "ja": f"gradient の戻り値がテンソルではなく {type(got).__name__} です。"
                              "loss.backward() を呼び、w.grad を返しましたか。"},
                       line=learner.line_of("gradient"))
    if got.shape != w.shape:
        raise Feedback({"en": f"gradient returned shape {tuple(got.shape)}; w has shape {tuple(w.shape)}.",
                        "ja": f"gradient が形状 {tuple(got.shape)} を返しました。w の形状は {tuple(w.shape)} です。"},
                       line=learner.line_of("gradient"))


@check("gradient-values",
       title={"en": "gradient matches the true gradient", "ja": "gradient が正しい勾配と一致する"},
       hint={"en": "Compute the loss from the copy that requires grad, call loss.backward() once, return its .grad.",
             "ja": "requires_grad のコピーから損失を計算し、loss.backward() を 1 回呼んで、その .grad を返しましょう。"},
       depends=["gradient-shape"])
def test_gradient_values(learner):
    for seed in (11, 12):
        w, x, y = problem(seed)
        got = learner.call("gradient", w, x, y)
        expected = exact_gradient(w, x, y)
        if torch.allclose(got, expected, rtol=1e-4, atol=1e-5):
            continue
        if torch.count_nonzero(got) == 0:
            en, ja = "gradient returned all zeros: loss.backward() never filled .grad.", \
                "gradient がすべて 0 を返しました。loss.backward() で .grad が埋まっていません。"
        elif torch.allclose(got, 2 * expected, rtol=1e-4, atol=1e-5):
            en, ja = "gradient is twice the true one: backward() ran twice and .grad added up.", \
                "勾配が正しい値の 2 倍です。backward() が 2 回実行されて .grad が足し込まれました。"
        else:
            gap = float((got - expected).abs().max())
            en, ja = f"gradient differs from the true gradient by up to {gap:.3g}.", \
                f"gradient が正しい勾配と最大 {gap:.3g} 異なります。"
        raise Feedback({"en": en, "ja": ja}, line=learner.line_of("gradient"))


def call_descend(learner, w, x, y, lr, steps):
    try:
        return learner.call("descend", w, x, y, lr, steps)
    except LearnerError as error:
        text = str(error)
        if "leaf Variable that requires grad" in text:
            raise Feedback({"en": "Updating w in place was recorded by autograd, which refuses it. "
                                  "Do the update inside `with torch.no_grad():`.",
                            "ja": "w のその場更新が autograd に記録されようとして拒否されました。"
                                  "`with torch.no_grad():` の中で更新してください。"},
                           line=error.line) from None
        if "NoneType" in text:
            raise Feedback({"en": "w.grad was None: w must require grad (w.clone().requires_grad_()) "
                                  "and backward() must run before the update.",
                            "ja": "w.grad が None でした。w が勾配を必要とする状態（`w.clone().requires_grad_()`）"
                                  "で、更新の前に `backward()` が実行されている必要があります。"},
                           line=error.line) from None
        raise


@check("descend-runs", given=True,
       title={"en": "descend runs and returns the weights", "ja": "descend が動き、重みを返す"},
       hint={"en": "Each step: loss, backward(), update under torch.no_grad(), clear the gradient.",
             "ja": "各ステップで、損失、backward()、torch.no_grad() の中での更新、勾配のクリアを行います。"})
def test_descend_runs(learner):
    w, x, y = problem(21)
    got = call_descend(learner, w, x, y, 0.05, 3)
    if not isinstance(got, torch.Tensor) or got.shape != w.shape:
        raise Feedback({"en": "descend must return the final weights, a tensor shaped like w.",
                        "ja": "descend は最後の重みを、w と同じ形状のテンソルで返してください。"},
                       line=learner.line_of("descend"))


@check("descend-clears-grad",
       title={"en": "descend takes the right steps and clears the gradient",
              "ja": "descend が正しく更新し、勾配を毎回消す"},
       hint={"en": "backward() adds into .grad: call w.grad.zero_() after every update.",
             "ja": "backward() は .grad に足し込みます。更新のたびに w.grad.zero_() を呼びましょう。"},
       depends=["descend-runs"])
def test_descend_matches(learner):
    w, x, y = problem(22)
    lr, steps = 0.05, 5
    got = call_descend(learner, w, x, y, lr, steps)
    expected = descend_reference(w, x, y, lr, steps)
    if torch.allclose(got, expected, rtol=1e-4, atol=1e-5):
        return
    line = learner.line_of("descend")
    if torch.allclose(got, w, atol=1e-7):
        raise Feedback({"en": "descend returned the starting weights: w was never updated.",
                        "ja": "descend が初期の重みをそのまま返しました。w が一度も更新されていません。"},
                       line=line)
    if torch.allclose(got, descend_reference(w, x, y, lr, steps, clear=False), rtol=1e-4, atol=1e-5):
        raise Feedback({"en": "The gradients piled up: each step used the sum of all the gradients so far. "
                              "Clear w.grad after every update.",
                        "ja": "勾配が積み重なり、各ステップがそれまでの勾配の合計で更新しています。"
                              "更新のたびに w.grad を消してください。"},
                       line=line)
    if torch.allclose(got, descend_reference(w, x, y, lr, 1), rtol=1e-4, atol=1e-5):
        raise Feedback({"en": f"Only one step was taken; descend must take {steps}.",
                        "ja": f"更新が 1 回しか行われていません。{steps} 回行ってください。"}, line=line)
    gap = float((got - expected).abs().max())
    raise Feedback({"en": f"After {steps} steps the weights differ from the expected ones by up to {gap:.3g}.",
                    "ja": f"{steps} ステップ後の重みが期待値と最大 {gap:.3g} 異なります。"}, line=line)
