"""Checks for tensors-dtype-memory: bytes of a tensor for every dtype, and casting by name."""

import torch

from grader.author import Feedback, check

# Shapes and dtypes the learner's function meets; a 0-d tensor and an empty one included.
CASES = [
    ((3, 4), torch.float32),
    ((5, 7), torch.float16),
    ((2, 3, 8), torch.bfloat16),
    ((10,), torch.int64),
    ((), torch.float32),
    ((0, 4), torch.float16),
]
DTYPE_NAMES = ["float32", "float16", "bfloat16", "int64"]


def describe(shape, dtype) -> str:
    return f"torch.zeros({shape}, dtype={str(dtype)})"


def bytes_mistake(got, tensor):
    """Name the usual wrong formula, in both languages, or None when it is not one of them."""
    numel, size = tensor.numel(), tensor.element_size()
    if got == numel and size != 1:
        return ("counts the elements, not the bytes: multiply by t.element_size()",
                "要素数を数えているだけで、バイト数になっていません。t.element_size() を掛けましょう")
    if got == numel * 4 and size != 4:
        return (f"assumes 4 bytes per element, but {tensor.dtype} takes {size}",
                f"1 要素を 4 バイトと決めつけていますが、{tensor.dtype} は {size} バイトです")
    if got == size and numel != 1:
        return ("gives the size of one element: multiply by t.numel()",
                "1 要素の大きさしか返していません。t.numel() を掛けましょう")
    return None


# given=True: the untouched starter already passes this check; it earns nothing while it holds and
# costs its point when broken (credit is for the learner's work, and failing work never shows 100 %).
@check("bytes-is-int", given=True,
       title={"en": "tensor_bytes returns an int", "ja": "tensor_bytes が int を返す"},
       hint={"en": "t.numel() and t.element_size() are both Python ints already.",
             "ja": "t.numel() も t.element_size() も最初から Python の int です。"})
def test_bytes_is_int(learner):
    got = learner.call("tensor_bytes", torch.zeros(3, 4))
    if isinstance(got, bool) or not isinstance(got, int):
        kind = "a tensor" if isinstance(got, torch.Tensor) else type(got).__name__
        raise Feedback({"en": f"tensor_bytes(torch.zeros(3, 4)) returned {kind}, not an int.",
                        "ja": f"`tensor_bytes(torch.zeros(3, 4))` の戻り値が int ではなく {kind} です。"},
                       line=learner.line_of("tensor_bytes"))


@check("bytes-every-dtype",
       title={"en": "tensor_bytes is right for every dtype and shape",
              "ja": "tensor_bytes がどの dtype と形状でも正しい"},
       hint={"en": "Bytes = number of elements × bytes per element.",
             "ja": "バイト数 = 要素数 × 1 要素あたりのバイト数 です。"},
       depends=["bytes-is-int"])
def test_bytes_every_dtype(learner):
    for shape, dtype in CASES:
        tensor = torch.zeros(shape, dtype=dtype)
        expected = tensor.numel() * tensor.element_size()
        got = learner.call("tensor_bytes", tensor)
        if got == expected:
            continue
        mistake = bytes_mistake(got, tensor)
        en = f"For {describe(shape, dtype)} it returned {got}, expected {expected}."
        ja = f"{describe(shape, dtype)} に対して {got} が返りましたが、正しくは {expected} です。"
        if mistake:
            en += f" Your formula {mistake[0]}."
            ja += f"{mistake[1]}。"
        raise Feedback({"en": en, "ja": ja}, line=learner.line_of("tensor_bytes"))


@check("cast-dtype",
       title={"en": "cast returns the dtype it was asked for", "ja": "cast が指定された dtype を返す"},
       hint={"en": "Every dtype is an attribute of the torch module, named like the string you get; "
                   "Python's getattr looks up an attribute by name.",
             "ja": "dtype はどれも torch モジュールの属性で、受け取る文字列と同じ名前です。Python の getattr は名前で属性を取り出します。"})
def test_cast_dtype(learner):
    source = torch.tensor([1.5, -2.25, 3.0])
    for name in DTYPE_NAMES:
        got = learner.call("cast", source, name)
        if not isinstance(got, torch.Tensor):
            raise Feedback({"en": f"cast(t, {name!r}) returned {type(got).__name__}, not a tensor.",
                            "ja": f"`cast(t, {name!r})` の戻り値がテンソルではなく {type(got).__name__} です。"},
                           line=learner.line_of("cast"))
        if got.dtype != getattr(torch, name):
            raise Feedback({"en": f"cast(t, {name!r}) returned a {str(got.dtype)} tensor; "
                                  f"expected torch.{name}.",
                            "ja": f"`cast(t, {name!r})` が {str(got.dtype)} のテンソルを返しました。"
                                  f"torch.{name} にしてください。"},
                           line=learner.line_of("cast"))


@check("cast-values",
       title={"en": "cast keeps the values and the shape", "ja": "cast が値と形状を保つ"},
       hint={"en": "Convert the tensor you were given; do not build a new one from scratch.",
             "ja": "新しく作り直すのではなく、受け取ったテンソルを変換しましょう。"},
       depends=["cast-dtype"])
def test_cast_values(learner):
    source = torch.linspace(-4, 4, 12).reshape(3, 4)
    for name in DTYPE_NAMES:
        expected = source.to(getattr(torch, name))
        got = learner.call("cast", source, name)
        if got.shape != expected.shape or not torch.equal(got, expected):
            raise Feedback({"en": f"cast(t, {name!r}) changed the values or the shape: "
                                  f"expected {expected.tolist()}, got {got.tolist()}.",
                            "ja": f"`cast(t, {name!r})` で値か形状が変わりました。"
                                  f"期待値 {expected.tolist()} に対して {got.tolist()} でした。"},
                           line=learner.line_of("cast"))
