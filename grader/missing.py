"""Words for code that lacks a function the exercise calls: which name, a near miss, and a line.

Empty code once read "Your function stopped with AttributeError: ... is not defined".
"""

from __future__ import annotations

import ast
import difflib
from typing import Any

from grader.testing import Text

MISSING = {
    "en": "Your code has no function named `{name}`, and the checks call it by that name.",
    "ja": "コードに `{name}` という名前の関数がありません。チェックはこの名前で呼び出します。",
}
EMPTY = {
    "en": "Your code is empty: write the function `{name}` that the prompt asks for.",
    "ja": "コードが空です。問題文で求められている関数 `{name}` を書きましょう。",
}
NEAR_MISS = {
    "en": " Line {line} defines `{found}`: is that the name you meant?",
    "ja": "{line} 行目で `{found}` を定義しています。この名前のつもりでしたか。",
}


def missing_name(error: dict[str, Any] | None) -> str | None:
    """The name of the function the learner's code lacks, when that is what the error says."""
    if not error:
        return None
    if error.get("kind") == "missing" and isinstance(error.get("message"), str):
        return error["message"].removesuffix(" is not defined").strip() or None
    return None


def _defined(source: str) -> dict[str, int]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    return {node.name: node.lineno for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def describe_missing(name: str, source: str) -> tuple[Text, int]:
    """The message (en, ja) and the line to mark: a near-miss definition, else the code's last line."""
    if not source.strip():
        return {lang: text.format(name=name) for lang, text in EMPTY.items()}, 1
    defined = _defined(source)
    close = difflib.get_close_matches(name, list(defined), n=1, cutoff=0.6)
    message = {lang: text.format(name=name) for lang, text in MISSING.items()}
    if close:
        found, line = close[0], defined[close[0]]
        return {lang: message[lang] + NEAR_MISS[lang].format(line=line, found=found) for lang in message}, line
    return message, max(1, len(source.rstrip().splitlines()))
