"""Checks for tensors-devices: pick_device follows torch.cuda.is_available, to_device uses `device`."""

import pytest

from grader.author import Feedback, LearnerError, call_line, check


@pytest.fixture(scope="module")
def picked(learner):
    return learner.scenario("tensors.pick_device")


def moved(learner, device):
    try:
        return learner.scenario("tensors.to_device", device=device)
    except LearnerError as error:
        if "CUDA" in str(error) or "cuda" in str(error):
            raise Feedback({"en": "to_device asked for CUDA on a machine without a GPU. "
                                  "Move things to the `device` argument, not to \"cuda\".",
                            "ja": "GPU のないマシンで to_device が CUDA を要求しました。"
                                  "\"cuda\" ではなく引数の `device` に移しましょう。"},
                           line=error.line) from None
        raise


# given=True: the untouched starter already passes this check; it earns nothing while it holds and
# costs its point when broken (credit is for the learner's work, and failing work never shows 100 %).
@check("pick-cpu", given=True, title={"en": "pick_device gives the CPU when there is no GPU",
                          "ja": "GPU がないとき pick_device が CPU を返す"},
       hint={"en": "torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\").",
             "ja": "torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\") です。"})
def test_pick_cpu(picked, learner):
    got = picked["without_gpu"]
    if got["type"] != "device" or got["device"] != "cpu":
        raise Feedback({"en": f"Without a GPU, pick_device() returned {got['device'] or got['type']}; "
                              "expected torch.device(\"cpu\").",
                        "ja": f"GPU がないとき pick_device() が {got['device'] or got['type']} を返しました。"
                              "torch.device(\"cpu\") を返してください。"},
                       line=learner.line_of("pick_device"))


@check("pick-cuda", title={"en": "pick_device gives the GPU when there is one",
                           "ja": "GPU があるとき pick_device が GPU を返す"},
       hint={"en": "Ask torch.cuda.is_available() instead of writing the device into the code.",
             "ja": "デバイスをコードに直接書かず、torch.cuda.is_available() に聞きましょう。"},
       depends=["pick-cpu"])
def test_pick_cuda(picked, learner):
    got = picked["with_gpu"]
    if got["device"] not in ("cuda", "cuda:0"):
        raise Feedback({"en": f"With a GPU available, pick_device() returned {got['device'] or got['type']}; "
                              "expected torch.device(\"cuda\").",
                        "ja": f"GPU があるのに pick_device() が {got['device'] or got['type']} を返しました。"
                              "torch.device(\"cuda\") を返してください。"},
                       line=learner.line_of("pick_device"))


@check("returns-triple", given=True, title={"en": "to_device returns (model, inputs, targets)",
                                "ja": "to_device が (model, inputs, targets) を返す"},
       hint={"en": "return model, inputs, targets", "ja": "return model, inputs, targets です。"})
def test_returns_triple(learner):
    got = moved(learner, "cpu")
    if not got["triple"] or not got["model_is_module"]:
        raise Feedback({"en": "to_device must return the three things it moved: (model, inputs, targets).",
                        "ja": "to_device は移した 3 つ (model, inputs, targets) を返してください。"},
                       line=learner.line_of("to_device"))


@check("moves-model", given=True, title={"en": "The model ends up on `device`", "ja": "モデルが `device` に移る"},
       hint={"en": "model.to(device) moves every parameter.", "ja": "model.to(device) ですべてのパラメータが移ります。"},
       depends=["returns-triple"])
def test_moves_model(learner):
    got = moved(learner, "meta")
    if got["model_devices"] != ["meta"]:
        raise Feedback({"en": f"Asked for the device 'meta', the model's parameters are on "
                              f"{', '.join(got['model_devices'])}. Use the `device` argument.",
                        "ja": f"デバイス 'meta' を指定したのに、モデルのパラメータが {', '.join(got['model_devices'])} "
                              "にあります。引数の `device` を使いましょう。"},
                       line=call_line(learner.source, "to_device", "to", learner.line_of("to_device")))


@check("moves-batch", title={"en": "The returned inputs and targets are on `device`",
                             "ja": "返した inputs と targets が `device` にある"},
       hint={"en": "inputs = inputs.to(device): tensor.to() returns a new tensor.",
             "ja": "inputs = inputs.to(device) としましょう。tensor.to() は新しいテンソルを返します。"},
       depends=["returns-triple"])
def test_moves_batch(learner):
    got = moved(learner, "meta")
    for name in ("inputs", "targets"):
        where = got[name].get("device")
        if where == "meta":
            continue
        en = f"The returned {name} are on {where or got[name]['type']}, not on the device 'meta' you were given."
        ja = f"返した {name} が、指定されたデバイス 'meta' ではなく {where or got[name]['type']} にあります。"
        if got["model_devices"] == ["meta"] and where == got["original_inputs_device"]:
            # The model moved, the tensors did not: the classic unassigned tensor.to().
            en += f" tensor.to() does not move a tensor in place: write {name} = {name}.to(device)."
            ja += f"tensor.to() はテンソルをその場では移しません。{name} = {name}.to(device) と書きましょう。"
        else:
            en += " Use the `device` argument."
            ja += "引数の `device` を使いましょう。"
        raise Feedback({"en": en, "ja": ja},
                       line=call_line(learner.source, "to_device", "to", learner.line_of("to_device")))
    if got["inputs"]["shape"] != [5, 4] or got["targets"]["dtype"] != "torch.int64":
        raise Feedback({"en": "Moving must keep the shape and the dtype of the batch.",
                        "ja": "移動しても、バッチの形状と dtype は変えないでください。"},
                       line=learner.line_of("to_device"))
