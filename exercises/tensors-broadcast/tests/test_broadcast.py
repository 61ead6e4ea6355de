"""Checks for tensors-broadcast: per-column standardization and pairwise distances, without loops."""

import ast

import torch

from grader.author import Feedback, LearnerError, check, return_line


def data(seed, *shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)) * 3 + 1


def loop_line(source, function):
    """The line of the first for/while loop (or comprehension) inside `function`, else None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            for inner in ast.walk(node):
                if isinstance(inner, (ast.For, ast.While, ast.comprehension)):
                    return getattr(inner, "lineno", None) or getattr(inner.target, "lineno", None)
    return None


def call(learner, name, *args):
    try:
        return learner.call(name, *args)
    except LearnerError as error:
        if "must match the size" in str(error):
            raise Feedback({"en": f"{name} hit a broadcasting error: {error}. Line the shapes up from the "
                                  "right; a reduction over dim=0 gives one value per column.",
                            "ja": f"{name} でブロードキャストのエラーになりました：{error}。形状は右からそろいます。"
                                  "dim=0 で集約すると列ごとに 1 つの値になります。"},
                           line=error.line) from None
        raise


# given=True: the untouched starter already passes this check; it earns nothing while it holds and
# costs its point when broken (credit is for the learner's work, and failing work never shows 100 %).
@check("standardize-shape-values",
       title={"en": "standardize_columns gives every column mean 0 and std 1",
              "ja": "standardize_columns で各列の平均が 0、標準偏差が 1 になる"},
       hint={"en": "Reduce over the rows so that you get one mean and one standard deviation per column; "
                   "broadcasting lines them up with x.",
             "ja": "行方向に集約して、列ごとに 1 つの平均と 1 つの標準偏差を求めましょう。ブロードキャストで x とそろいます。"})
def test_standardize(learner):
    x = data(1, 6, 3)
    got = call(learner, "standardize_columns", x)
    # A wrong value is marked where it leaves the function (its return), not at the def.
    line = return_line(learner.source, "standardize_columns", learner.line_of("standardize_columns"))
    if not isinstance(got, torch.Tensor) or got.shape != x.shape:
        shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
        raise Feedback({"en": f"standardize_columns returned {shape}; expected shape {tuple(x.shape)}.",
                        "ja": f"standardize_columns が {shape} を返しました。形状 {tuple(x.shape)} になるはずです。"},
                       line=line)
    expected = (x - x.mean(dim=0)) / x.std(dim=0)
    if torch.allclose(got, expected, atol=1e-5):
        return
    en = "The columns do not come out with mean 0 and standard deviation 1."
    ja = "各列の平均が 0、標準偏差が 1 になっていません。"
    if torch.allclose(got, (x - x.mean()) / x.std(), atol=1e-5) or torch.allclose(got, x - x.mean(), atol=1e-5):
        en += " You used one mean for the whole tensor: reduce over dim=0 to get one per column."
        ja += "テンソル全体で 1 つの平均を使っています。dim=0 で集約して列ごとの値にしましょう。"
    raise Feedback({"en": en, "ja": ja}, line=line)


@check("distances-shape", given=True,
       title={"en": "pairwise_sq_distances returns shape (n, m)", "ja": "`pairwise_sq_distances` が形状 `(n, m)` を返す"},
       hint={"en": "Give a and b each an axis of size 1, in different places, so that their difference "
                   "broadcasts to (n, m, d); then reduce the axis of the coordinates.",
             "ja": "a と b にそれぞれ別の位置で大きさ 1 の軸を入れると、差が `(n, m, d)` にブロードキャストされます。"
                   "そのあと座標の軸で集約しましょう。"})
def test_distances_shape(learner):
    got = call(learner, "pairwise_sq_distances", data(2, 4, 3), data(3, 5, 3))
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != (4, 5):
        shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
        raise Feedback({"en": f"For a of shape (4, 3) and b of shape (5, 3) the result was {shape}; expected (4, 5).",
                        "ja": f"`a` の形状 `(4, 3)`、`b` の形状 `(5, 3)` に対して結果が {shape} でした。`(4, 5)` になるはずです。"},
                       line=learner.line_of("pairwise_sq_distances"))


@check("distances-values", given=True,
       title={"en": "pairwise_sq_distances is right for every pair", "ja": "pairwise_sq_distances がすべての組で正しい"},
       hint={"en": "Square the differences before summing, and do not take the square root.",
             "ja": "差を 2 乗してから合計し、平方根はとらないでください。"},
       depends=["distances-shape"])
def test_distances_values(learner):
    for seed, (n, m, d) in enumerate([(4, 5, 3), (1, 6, 2), (7, 1, 1)]):
        a, b = data(10 + seed, n, d), data(20 + seed, m, d)
        got = call(learner, "pairwise_sq_distances", a, b)
        expected = torch.cdist(a, b) ** 2
        if got.shape == expected.shape and torch.allclose(got, expected, rtol=1e-4, atol=1e-4):
            continue
        en = f"For n={n}, m={m}, d={d} some distances are wrong."
        ja = f"n={n}、m={m}、d={d} のとき、いくつかの距離が正しくありません。"
        if got.shape == expected.shape and torch.allclose(got, expected.sqrt(), rtol=1e-4, atol=1e-4):
            en += " These are the distances, not their squares."
            ja += "距離そのものになっています。2 乗の値を返しましょう。"
        raise Feedback({"en": en, "ja": ja}, line=learner.line_of("pairwise_sq_distances"))


@check("no-loops",
       title={"en": "Both functions use broadcasting, not Python loops",
              "ja": "どちらの関数も Python のループではなくブロードキャストを使う"},
       hint={"en": "Reshape with None (or unsqueeze) so the shapes broadcast, then reduce with sum(dim=...).",
             "ja": "`None`（または `unsqueeze`）で形状を変えてブロードキャストさせ、`sum(dim=...)` で集約しましょう。"},
       depends=["distances-shape"])
def test_no_loops(learner):
    for function in ("standardize_columns", "pairwise_sq_distances"):
        line = loop_line(learner.source, function)
        if line:
            raise Feedback({"en": f"{function} loops in Python (line {line}): one broadcast expression "
                                  "does the same work in a single tensor operation.",
                            "ja": f"{function} が Python のループを使っています（{line} 行目）。"
                                  "1 つのブロードキャストの式で、同じ計算を 1 回のテンソル演算で行えます。"},
                           line=line)
