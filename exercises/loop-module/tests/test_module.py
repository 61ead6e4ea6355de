"""Checks for loop-module: an nn.Module whose layers are registered, non-linear, and trainable."""

import math

import pytest

from grader.author import Feedback, check, def_line

SIZES = {"in_features": 8, "hidden": 16, "out_features": 3}
EXPECTED_COUNT = 8 * 16 + 16 + 16 * 3 + 3


@pytest.fixture(scope="module")
def built(learner):
    return learner.scenario("modules.mlp", **SIZES, batch=5)


def line(learner, method):
    return def_line(learner.source, f"MLP.{method}") or learner.line_of("MLP")


# given=True: the untouched starter already passes this check; it earns nothing while it holds and
# costs its point when broken (credit is for the learner's work, and failing work never shows 100 %).
@check("is-module", given=True, title={"en": "MLP is an nn.Module that returns (batch, out_features)",
                           "ja": "`MLP` が `nn.Module` で、`(batch, out_features)` を返す"},
       hint={"en": "class MLP(nn.Module), super().__init__() first, and return the last layer's output.",
             "ja": "`class MLP(nn.Module)` とし、最初に `super().__init__()` を呼び、最後の層の出力を返しましょう。"})
def test_is_module(built, learner):
    if not built["is_module"]:
        raise Feedback({"en": f"MLP(8, 16, 3) built a {built['type']}, not an nn.Module.",
                        "ja": f"`MLP(8, 16, 3)` が `nn.Module` ではなく {built['type']} になりました。"},
                       line=learner.line_of("MLP"))
    if built.get("out_shape") != [5, 3]:
        got = built.get("out_shape") or built.get("out_type")
        raise Feedback({"en": f"A batch of shape (5, 8) came out as {got}; expected (5, 3).",
                        "ja": f"形状 `(5, 8)` のバッチの出力が {got} でした。`(5, 3)` になるはずです。"},
                       line=line(learner, "forward"))


@check("parameters-registered",
       title={"en": "Every layer's weights are registered parameters",
              "ja": "すべての層の重みがパラメータとして登録されている"},
       hint={"en": "Assign layers to attributes or use nn.Sequential / nn.ModuleList, never a plain list.",
             "ja": "層は属性に代入するか nn.Sequential / nn.ModuleList を使い、ふつうのリストには入れないでください。"},
       depends=["is-module"])
def test_parameters(built, learner):
    count = sum(math.prod(shape) for shape in built["parameters"].values())
    if count == EXPECTED_COUNT:
        return
    en = f"model.parameters() holds {count} numbers; Linear(8, 16) and Linear(16, 3) have {EXPECTED_COUNT}."
    ja = f"model.parameters() には {count} 個の値しかありません。Linear(8, 16) と Linear(16, 3) で {EXPECTED_COUNT} 個のはずです。"
    if count < EXPECTED_COUNT:
        en += " Layers kept in a plain Python list or dict are invisible to the module."
        ja += "ふつうの Python のリストや辞書に入れた層は、モジュールから見えません。"
    raise Feedback({"en": en, "ja": ja}, line=line(learner, "__init__"))


@check("non-linear", title={"en": "A ReLU sits between the layers", "ja": "層の間に ReLU がある"},
       hint={"en": "nn.ReLU() (or torch.relu) between the two Linear layers.",
             "ja": "2 つの Linear 層の間に `nn.ReLU()`（または `torch.relu`）を入れましょう。"},
       depends=["is-module"])
def test_non_linear(built, learner):
    if built["affine_gap"] < 1e-5:
        raise Feedback({"en": "The model is a single linear map: with nothing between them, two Linear "
                              "layers compute what one could. Add a ReLU.",
                        "ja": "モデルが 1 つの線形写像になっています。間に何もなければ、2 つの Linear 層は "
                              "1 つの層と同じ計算しかできません。ReLU を入れましょう。"},
                       line=line(learner, "forward"))


@check("gradients-flow", title={"en": "Backward reaches every parameter", "ja": "逆伝播がすべてのパラメータに届く"},
       hint={"en": "Do not detach the output or compute it under torch.no_grad().",
             "ja": "出力を detach したり、torch.no_grad() の中で計算したりしないでください。"},
       depends=["parameters-registered"])
def test_gradients(built, learner):
    missing = built["without_grad"]
    if missing:
        raise Feedback({"en": f"After backward(), {', '.join(missing)} had no gradient.",
                        "ja": f"backward() のあと、{', '.join(missing)} に勾配がありませんでした。"},
                       line=line(learner, "forward"))
