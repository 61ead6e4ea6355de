"""The Japanese prose of the course: lessons, prompts, hints, quizzes and figures, code removed."""

from __future__ import annotations

import ast
import itertools
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

from grader.japanese_text import GLOSSARY, glossary, strip_code

ROOT = Path(__file__).resolve().parents[2]
__all__ = ["GLOSSARY", "ROOT", "check_messages", "documents", "glossary", "japanese_values",
           "python_texts", "strip_code"]  # the rules live in grader.japanese_text
_SVG_TEXT = re.compile(r"<(?:text|title|desc)[^>]*>(.*?)</(?:text|title|desc)>", re.S)
_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)


def _quiz_texts(data: object, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "ja" and isinstance(value, str):
                yield where, value
            else:
                yield from _quiz_texts(value, f"{where}.{key}")
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _quiz_texts(value, f"{where}[{i}]")


def documents() -> Iterator[tuple[str, str, bool]]:
    """(name, Japanese text without code, is_markdown) for every Japanese text of the course."""
    for path in sorted(ROOT.glob("lessons/*/ja.md")):
        text = _FRONT.sub(lambda m: "\n" * m.group(0).count("\n"), path.read_text("utf-8"))
        yield str(path.relative_to(ROOT)), strip_code(text), True
    for pattern in ("exercises/*/prompt.ja.md", "exercises/*/hints.ja.md"):
        for path in sorted(ROOT.glob(pattern)):
            yield str(path.relative_to(ROOT)), strip_code(path.read_text("utf-8")), True
    for path in sorted(ROOT.glob("exercises/quiz-*/quiz.toml")):
        quiz = tomllib.loads(path.read_text("utf-8"))
        for where, text in _quiz_texts(quiz, ""):
            yield f"{path.relative_to(ROOT)}{where}", strip_code(text), False
    for path in sorted(ROOT.glob("lessons/*/img/*.ja.svg")):
        texts = _SVG_TEXT.findall(path.read_text("utf-8"))
        yield str(path.relative_to(ROOT)), "\n".join(texts), False


# What an f-string's `{...}` or a variable part reads as: neither a word nor Japanese, so it neither
# completes an English term ("step{}") nor sits next to a bracket as Japanese would.
HOLE = "{}"


def python_texts(node: ast.expr) -> list[str] | None:
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
        left, right = python_texts(node.left), python_texts(node.right)
        if left is None or right is None:
            return None
        return [a + b for a, b in itertools.product(left, right)]
    if isinstance(node, ast.IfExp):
        body, orelse = python_texts(node.body), python_texts(node.orelse)
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


def check_messages() -> Iterator[tuple[str, str]]:
    """(file:line, text) of every Japanese text an exercise's checks show (exercises/*/tests/*.py:
    titles, hints, feedback), an f-string's holes read as HOLE."""
    for path in sorted(ROOT.glob("exercises/*/tests/*.py")):
        for line, value in japanese_values(path):
            for text in dict.fromkeys(python_texts(value) or []):
                yield f"{path.relative_to(ROOT)}:{line}", text
