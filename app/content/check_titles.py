"""The titles of an exercise's checks, read from its tests without importing them."""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

from grader.api import Exercise

Titles = dict[str, dict[str, str]]  # check id -> lang -> title


def _literal(node: ast.expr | None) -> object:
    try:
        return ast.literal_eval(node) if node is not None else None
    except ValueError:
        return None


def _from_source(source: str) -> Titles:
    """@check("slug", title=...) decorators; a check without a literal title uses its docstring."""
    titles: Titles = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return titles
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for deco in node.decorator_list:
            if not (isinstance(deco, ast.Call) and getattr(deco.func, "id", "") == "check"
                    and deco.args):
                continue
            slug = _literal(deco.args[0])
            title = _literal(next((k.value for k in deco.keywords if k.arg == "title"), None))
            if not isinstance(slug, str):
                continue
            if isinstance(title, str):
                title = {"en": title}
            if not isinstance(title, dict):
                doc = (ast.get_docstring(node) or "").strip().splitlines()
                title = {"en": doc[0]} if doc else {}
            titles[slug] = {str(k): str(v) for k, v in title.items()}
    return titles


@lru_cache(maxsize=256)
def _cached(path: Path, _mtime: int) -> Titles:
    return _from_source(path.read_text(encoding="utf-8"))


def check_titles(exercise: Exercise, lang: str) -> dict[str, str]:
    """check id -> title in lang (English when the check has no title in lang)."""
    found: dict[str, str] = {}
    for path in sorted((exercise.path / "tests").glob("*.py")):
        for slug, title in _cached(path, path.stat().st_mtime_ns).items():
            found[slug] = title.get(lang) or title.get("en") or slug
    return found
