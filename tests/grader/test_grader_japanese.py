"""The grader's own Japanese texts (every `"ja"` value in grader/**/*.py) follow the course glossary
and punctuation rules, as `grader validate` and tests/lessons hold exercises and lessons to them."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

from grader.japanese_text import avoided_uses, punctuation_problems, strip_code

GRADER = Path(__file__).resolve().parents[2] / "grader"
# What an f-string's `{...}` or a variable part reads as: neither a word nor Japanese, so it neither
# completes an English term ("step{}") nor sits next to a bracket as Japanese would.
HOLE = "{}"


def _texts(node: ast.expr) -> list[str] | None:
    """Every text `node` can evaluate to, its runtime parts as HOLE; None when it is not text-shaped."""
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        # A `{where_ja}` part may be empty ("" when there is no line): try the text without it too,
        # so "停止しました{where_ja}: ..." shows its sentence ending in a colon.
        parts = [[part.value] if isinstance(part, ast.Constant)
                 else [HOLE, ""] if isinstance(part.value, ast.Name) and part.value.id.endswith("_ja")
                 else [HOLE] for part in node.values]
        return ["".join(texts) for texts in itertools.product(*parts)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _texts(node.left), _texts(node.right)
        if left is None or right is None:
            return None
        return [a + b for a, b in itertools.product(left, right)]
    if isinstance(node, ast.IfExp):
        body, orelse = _texts(node.body), _texts(node.orelse)
        return None if body is None or orelse is None else body + orelse
    if isinstance(node, ast.Name):
        # A variable (base_ja + "..."): its own assignment is checked where it is written (_assigned).
        return [HOLE]
    return None


def _assigned(target: ast.expr, value: ast.expr) -> list[ast.expr]:
    """The values assigned to names ending in `_ja` (`at_en, at_ja = (..., ...) if line else ...`)."""
    if isinstance(target, ast.Name):
        return [value] if target.id.endswith("_ja") else []
    if isinstance(target, ast.Tuple):
        if isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts):
            return [v for t, e in zip(target.elts, value.elts, strict=True) for v in _assigned(t, e)]
        if isinstance(value, ast.IfExp):
            return _assigned(target, value.body) + _assigned(target, value.orelse)
    return []


def japanese_values(path: Path) -> list[tuple[int, ast.expr]]:
    """(line, expression) of every `"ja": ...` in a dict literal of `path` and every `..._ja = ...`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Dict):
            found += [(v.lineno, v) for k, v in zip(node.keys, node.values, strict=True)
                      if isinstance(k, ast.Constant) and k.value == "ja"]
        elif isinstance(node, ast.Assign):
            found += [(v.lineno, v) for t in node.targets for v in _assigned(t, node.value)]
    return found


def grader_problems(root: Path = GRADER) -> list[str]:
    """Every glossary and punctuation problem of the grader's Japanese texts, as 'file:line: ...'."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        for line, value in japanese_values(path):
            name = path.relative_to(root.parent).as_posix()
            texts = _texts(value)
            if texts is None:
                problems.append(f"{name}:{line}: the Japanese text is built in a way this test cannot "
                                "read (write it as a string, an f-string, + or a conditional)")
                continue
            for text in dict.fromkeys(texts):
                # Feedback shows `backticked` spans as code (app/static/src/results.js): code is
                # exempt only there, so code in a message belongs in backticks. Messages are plain
                # text, not Markdown: the list-item rule does not apply.
                plain = strip_code(text)
                problems += [f"{name}:{line + at - 1}: '{term}' is not the course's word: use "
                             f"'{preferred}' (docs/glossary.md)  in: {text!r}"
                             for at, term, preferred in avoided_uses(plain)]
                problems += [f"{name}:{line + at - 1}: {rule}  in: {text!r}"
                             for at, rule in punctuation_problems(plain, markdown=False)]
    return problems


def test_the_graders_japanese_texts_follow_the_glossary_and_punctuation() -> None:
    problems = grader_problems()
    assert not problems, "\n".join(problems)


def test_the_walk_finds_texts_in_every_shape_and_reports_them(tmp_path: Path) -> None:
    package = tmp_path / "grader"
    package.mkdir()
    (package / "sample.py").write_text(
        'MESSAGE = {"en": "x", "ja": "損失スケールが小さい"}\n'
        'def f(n, line):\n'
        '    at_en, at_ja = ("", f"{line} 行目で飛ばしています") if line else ("", "")\n'
        '    return {"en": "y",\n'
        '            "ja": f"{n} 回 step しました" + ("（行）" if line else "閾値です:")}\n'
        'CODE = {"ja": "`scaler.step(optimizer)` と `step` はコードなので、そのままです。"}\n'
        'BUILT = {"ja": "".join(["x"])}\n'
        'BARE = {"ja": "scaler.step(optimizer) を呼びましょう。"}\n', encoding="utf-8")
    problems = "\n".join(grader_problems(package))
    assert "grader/sample.py:1: '損失スケール' is not the course's word: use 'ロススケール'" in problems
    assert "grader/sample.py:3: '飛ばし' is not the course's word: use 'スキップ'" in problems
    assert "grader/sample.py:5: 'step' is not the course's word: use 'ステップ'" in problems
    assert "grader/sample.py:5: '閾値' is not the course's word: use 'しきい値'" in problems
    assert "grader/sample.py:5: half-width colon next to Japanese" in problems
    assert "grader/sample.py:6:" not in problems  # code in backticks is not prose
    assert "grader/sample.py:7: the Japanese text is built in a way this test cannot read" in problems
    # A call written without backticks is caught by the bracket rule: the fix is backticks.
    assert "grader/sample.py:8: half-width parentheses next to Japanese" in problems
