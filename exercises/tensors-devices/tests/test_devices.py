"""Checks for tensors-devices: pick_device follows torch.cuda.is_available, to_device uses `device`."""

import ast

import pytest

from grader.author import Feedback, LearnerError, NotChecked, call_line, check, return_line

HARD_CODED = {"en": "to_device asked for CUDA on a machine without a GPU. Move it to the `device` argument, "
                    "not to \"cuda\".",
              "ja": "GPU のないマシンで to_device が CUDA を要求しました。\"cuda\" ではなく引数の `device` に"
                    "移しましょう。"}


@pytest.fixture(scope="module")
def picked(learner):
    return learner.scenario("tensors.pick_device")


def moved(learner, device):
    """(the scenario's answer, None), or (None, the error) when to_device stopped asking for CUDA."""
    try:
        return learner.scenario("tensors.to_device", device=device), None
    except LearnerError as error:
        if "cuda" in str(error).lower():
            return None, error
        raise


def model_move_lines(source):
    """Lines in to_device that call model.to(...): a CUDA error there is the model's move."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "to"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "model"}


def move_line(source, name):
    """The line in to_device that calls `name`.to(...) (the move that went wrong), else its first .to() or def."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for function in tree.body:
        if isinstance(function, ast.FunctionDef) and function.name == "to_device":
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "to" \
                        and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
                    return node.lineno
            return call_line(source, "to_device", "to", function.lineno)
    return None


def not_returned():
    return NotChecked({"en": "Not checked: to_device did not return (model, inputs, targets).",
                       "ja": "未確認：`to_device` が `(model, inputs, targets)` を返しませんでした。"})


# given=True: the untouched starter already passes this check; it earns nothing while it holds and
# costs its point when broken (credit is for the learner's work, and failing work never shows 100 %).
@check("pick-cpu", given=True, title={"en": "pick_device gives the CPU when there is no GPU",
                          "ja": "GPU がないとき pick_device が CPU を返す"},
       hint={"en": "Ask torch.cuda.is_available() rather than assuming a GPU; without one the answer is the CPU.",
             "ja": "GPU があると決めつけず torch.cuda.is_available() で確かめましょう。なければ CPU です。"})
def test_pick_cpu(picked, learner):
    got = picked["without_gpu"]
    if got["type"] != "device" or got["device"] != "cpu":
        raise Feedback({"en": f"Without a GPU, pick_device() returned {got['device'] or got['type']}; "
                              "expected torch.device(\"cpu\").",
                        "ja": f"GPU がないとき `pick_device()` が {got['device'] or got['type']} を返しました。"
                              "`torch.device(\"cpu\")` を返してください。"},
                       line=return_line(learner.source, "pick_device", learner.line_of("pick_device")))


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
                        "ja": f"GPU があるのに `pick_device()` が {got['device'] or got['type']} を返しました。"
                              "`torch.device(\"cuda\")` を返してください。"},
                       line=return_line(learner.source, "pick_device", learner.line_of("pick_device")))


@check("returns-triple", given=True, title={"en": "to_device returns (model, inputs, targets)",
                                "ja": "`to_device` が `(model, inputs, targets)` を返す"},
       hint={"en": "return model, inputs, targets", "ja": "return model, inputs, targets です。"})
def test_returns_triple(learner):
    got, error = moved(learner, "cpu")
    if error is not None:  # a hard-coded device is the move's mistake, reported by the move's check
        raise NotChecked({"en": f"Not checked: to_device stopped on line {error.line} asking for CUDA (see below).",
                          "ja": f"未確認：to_device が {error.line} 行目で CUDA を要求して停止しました（下を参照）。"})
    if not got["triple"] or not got["model_is_module"]:
        raise Feedback({"en": "to_device must return the three things it moved: (model, inputs, targets).",
                        "ja": "`to_device` は移した 3 つ `(model, inputs, targets)` を返してください。"},
                       line=return_line(learner.source, "to_device", learner.line_of("to_device")))


@check("moves-model", given=True, title={"en": "The model ends up on `device`", "ja": "モデルが `device` に移る"},
       hint={"en": "model.to(device) moves every parameter.", "ja": "`model.to(device)` ですべてのパラメータが移ります。"})
def test_moves_model(learner):
    got, error = moved(learner, "meta")
    if error is not None:
        if error.line in model_move_lines(learner.source):
            raise Feedback(HARD_CODED, line=error.line)
        raise NotChecked({"en": "Not checked: to_device stopped before the model could be seen.",
                          "ja": "未確認：モデルを確認する前に to_device が停止しました。"})
    if not got["triple"] or not got["model_is_module"]:
        raise not_returned()
    if got["model_devices"] != ["meta"]:
        # The scenario's device is a stand-in the learner never chose: the message says `device`.
        raise Feedback({"en": f"Given a `device` to move to, the model's parameters stayed on "
                              f"{', '.join(got['model_devices'])}. Use the `device` argument.",
                        "ja": f"移す先の `device` を渡したのに、モデルのパラメータが {', '.join(got['model_devices'])} "
                              "のままです。引数の `device` を使いましょう。"},
                       line=move_line(learner.source, "model"))


@check("moves-batch", title={"en": "The returned inputs and targets are on `device`",
                             "ja": "返した inputs と targets が `device` にある"},
       hint={"en": "tensor.to() does not move the tensor you call it on: it returns a new one. Keep what it returns.",
             "ja": "tensor.to() は呼び出したテンソル自体を移しません。新しいテンソルを返すので、その戻り値を使いましょう。"})
def test_moves_batch(learner):
    got, error = moved(learner, "meta")
    if error is not None:
        if error.line not in model_move_lines(learner.source):
            raise Feedback(HARD_CODED, line=error.line)
        raise NotChecked({"en": "Not checked: to_device stopped on the model's move before the batch's.",
                          "ja": "未確認：バッチを移す前に、モデルの移動で to_device が停止しました。"})
    if not got["triple"]:
        raise not_returned()
    for name in ("inputs", "targets"):
        where = got[name].get("device")
        if where == "meta":
            continue
        en = f"The returned {name} are still on {where or got[name]['type']}, not on the `device` you were given."
        ja = f"返した {name} が、渡された `device` ではなく {where or got[name]['type']} にあります。"
        if got["model_devices"] == ["meta"] and where == got["original_inputs_device"]:
            # The model moved, the tensors did not: the classic unassigned tensor.to(). Say what
            # .to() does, not the line to write (a hint never hands over the answer).
            en += (f" tensor.to() does not move a tensor in place: it returns a moved copy, and the {name} "
                   "your function returns are the ones it was given.")
            ja += (f"tensor.to() はテンソルをその場では移さず、移したコピーを返します。関数が返している {name} は"
                   "渡されたときのままです。")
        else:
            en += " Use the `device` argument."
            ja += "引数の `device` を使いましょう。"
        raise Feedback({"en": en, "ja": ja}, line=move_line(learner.source, name))
    if got["inputs"]["shape"] != [5, 4] or got["targets"]["dtype"] != "torch.int64":
        raise Feedback({"en": "Moving must keep the shape and the dtype of the batch.",
                        "ja": "移動しても、バッチの形状と dtype は変えないでください。"},
                       line=learner.line_of("to_device"))
