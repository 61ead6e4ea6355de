"""Checks for loop-dataset: length, (x, y) pairs of the right shape, dtype and values, the loader."""

import pytest
import torch

from grader.author import Feedback, check, def_line, make_series

# Series values come from a seed the learner never sees.
SERIES = {"seed": 20261130, "length": 20}
WINDOW = 5
EXPECTED_LEN = SERIES["length"] - WINDOW


def run(learner, part, **extra):
    return learner.scenario("loop.dataset", **SERIES, window=WINDOW, part=part, **extra)


def method_line(learner, method):
    """The line of WindowDataset.<method>, or of the class when the method is missing."""
    return def_line(learner.source, f"WindowDataset.{method}") or learner.line_of("WindowDataset")


def line_of_getitem(learner):
    return method_line(learner, "__getitem__")


def kind_of(value) -> str:
    return "a tensor" if isinstance(value, torch.Tensor) else value["type"]


@pytest.fixture(scope="module")
def series():
    return make_series(SERIES)


@check("length",
       title={"en": "len() counts the windows that have a next value",
              "ja": "len() が「次の値」を持つ窓の数を返す"},
       hint={"en": "With 20 values and a window of 5 there are 15 pairs: len(series) - window.",
             "ja": "値が 20 個で窓が 5 なら、ペアは 15 個（`len(series) - window`）です。"})
def test_length(learner):
    got = run(learner, "len")["len"]
    if got == EXPECTED_LEN:
        return
    en = f"For {SERIES['length']} values and window={WINDOW}, len() returned {got}; expected {EXPECTED_LEN}."
    ja = f"値 {SERIES['length']} 個、window={WINDOW} のとき len() が {got} を返しました。正しくは {EXPECTED_LEN} です。"
    if got == EXPECTED_LEN + 1:
        en += " The last window would have no value after it."
        ja += "最後の窓の後ろには次の値がありません。"
    raise Feedback({"en": en, "ja": ja}, line=method_line(learner, "__len__"))


@check("item-is-pair",
       title={"en": "dataset[i] returns a pair of tensors (x, y)", "ja": "`dataset[i]` がテンソルのペア `(x, y)` を返す"},
       hint={"en": "End __getitem__ with `return x, y`.", "ja": "__getitem__ の最後で `return x, y` としましょう。"})
def test_item_is_pair(learner):
    item = run(learner, "items", indices=[0])["items"][0]
    line = line_of_getitem(learner)
    if not item["pair"]:
        raise Feedback({"en": f"dataset[0] returned {item['type']}, not a pair (x, y).",
                        "ja": f"`dataset[0]` がペア `(x, y)` ではなく {item['type']} を返しました。"}, line=line)
    for name in ("x", "y"):
        if not isinstance(item[name], torch.Tensor):
            raise Feedback({"en": f"{name} in dataset[0] is {kind_of(item[name])}, not a tensor.",
                            "ja": f"dataset[0] の {name} がテンソルではなく {kind_of(item[name])} です。"},
                           line=line)


@check("item-shape-dtype",
       title={"en": "x has shape (window,) and y shape (), both float32",
              "ja": "`x` の形状が `(window,)`、`y` の形状が `()` で、どちらも float32"},
       hint={"en": "Slice for x (series[i:i + window]); index with one integer for y (series[i + window]).",
             "ja": "`x` はスライス（`series[i:i + window]`）、`y` は整数 1 つの添字（`series[i + window]`）で取り出しましょう。"},
       depends=["item-is-pair"])
def test_item_shape_dtype(learner):
    item = run(learner, "items", indices=[2])["items"][0]
    x, y = item["x"], item["y"]
    line = line_of_getitem(learner)
    if tuple(x.shape) != (WINDOW,):
        raise Feedback({"en": f"x has shape {tuple(x.shape)}; expected ({WINDOW},).",
                        "ja": f"x の形状が {tuple(x.shape)} です。`({WINDOW},)` にしてください。"}, line=line)
    if tuple(y.shape) != ():
        extra = (" Index with a single integer, not a slice.", "スライスではなく整数 1 つで添字を付けましょう。") \
            if tuple(y.shape) == (1,) else ("", "")
        raise Feedback({"en": f"y has shape {tuple(y.shape)}; expected a 0-d tensor, shape ().{extra[0]}",
                        "ja": f"y の形状が {tuple(y.shape)} です。0 次元（形状 `()`）にしてください。{extra[1]}"},
                       line=line)
    for name, value in (("x", x), ("y", y)):
        if value.dtype != torch.float32:
            raise Feedback({"en": f"{name} is {str(value.dtype)}; keep the series' float32 (no conversion needed).",
                            "ja": f"{name} が {str(value.dtype)} です。系列の float32 のままにしてください（変換は不要です）。"},
                           line=line)


@check("item-values",
       title={"en": "x is the window at i and y the value right after it",
              "ja": "x が位置 i からの窓で、y がその直後の値"},
       hint={"en": "x = series[i:i + window] and y = series[i + window].",
             "ja": "x = series[i:i + window]、y = series[i + window] です。"},
       depends=["item-shape-dtype", "length"])
def test_item_values(learner, series):
    indices = [0, 7, EXPECTED_LEN - 1]  # the last index catches an off-by-one at the end
    items = run(learner, "items", indices=indices)["items"]
    for i, item in zip(indices, items, strict=True):
        x, y = series[i:i + WINDOW], series[i + WINDOW]
        if not torch.equal(item["x"], x) or not torch.equal(item["y"], y):
            raise Feedback({"en": f"dataset[{i}] should be (series[{i}:{i + WINDOW}], series[{i + WINDOW}]); "
                                  f"got x={item['x'].tolist()}, y={item['y'].item():.4f}.",
                            "ja": f"`dataset[{i}]` は `(series[{i}:{i + WINDOW}], series[{i + WINDOW}])` になるはずですが、"
                                  f"x={item['x'].tolist()}、y={item['y'].item():.4f} でした。"},
                           line=line_of_getitem(learner))


@check("batches",
       title={"en": "A DataLoader stacks the pairs into batches", "ja": "DataLoader がペアをバッチに積み重ねる"},
       hint={"en": "Return tensors, not lists or numbers, so the DataLoader can stack them.",
             "ja": "DataLoader が積み重ねられるよう、リストや数値ではなくテンソルを返しましょう。"},
       depends=["item-shape-dtype"])
def test_batches(learner):
    batch = run(learner, "batch")["batch"]
    if tuple(batch["x"].shape) != (4, WINDOW) or tuple(batch["y"].shape) != (4,):
        raise Feedback({"en": f"A batch of 4 has x {tuple(batch['x'].shape)} and y {tuple(batch['y'].shape)}; "
                              f"expected (4, {WINDOW}) and (4,).",
                        "ja": f"4 個のバッチで x が {tuple(batch['x'].shape)}、y が {tuple(batch['y'].shape)} でした。"
                              f"`(4, {WINDOW})` と `(4,)` になるはずです。"},
                       line=line_of_getitem(learner))


@check("loader-shuffles",
       title={"en": "make_loader batches and shuffles", "ja": "make_loader がバッチを作り、シャッフルする"},
       hint={"en": "DataLoader does both: it takes the dataset, and keyword arguments for the batch size "
                   "and for shuffling.",
             "ja": "DataLoader が両方を行います。データセットと、バッチサイズとシャッフルのキーワード引数を渡しましょう。"})
def test_loader(learner):
    got = run(learner, "loader", batch_size=6)
    line = learner.line_of("make_loader")
    if not got["is_loader"]:
        raise Feedback({"en": f"make_loader returned {got['type']}, not a DataLoader.",
                        "ja": f"make_loader が DataLoader ではなく {got['type']} を返しました。"}, line=line)
    if not got["same_dataset"] or got["batch_size"] != 6:
        raise Feedback({"en": f"make_loader(dataset, 6) should load `dataset` in batches of 6 "
                              f"(its batch_size is {got['batch_size']}).",
                        "ja": f"`make_loader(dataset, 6)` は `dataset` を 6 個ずつ読み込むはずです"
                              f"（`batch_size` は {got['batch_size']} でした）。"}, line=line)
    if not got["shuffle"]:
        raise Feedback({"en": "The loader reads the pairs in the same order every epoch; pass shuffle=True.",
                        "ja": "毎エポック同じ順序で読み込んでいます。shuffle=True を渡しましょう。"}, line=line)
