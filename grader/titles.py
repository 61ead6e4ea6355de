"""The titles of an exercise's checks, read from its tests with `ast` (never imported), AMP one-liners included.

What the harness would put in a results document's `title`, without grading: for pages that
name checks before or apart from a grading (the instructor overview). A check declared with
`@check(slug, title=...)` takes its literal title (a string is English) or its docstring's
first line; `amp.check(slug)` takes the registered AMP check's title unless given one;
`amp.runs()` and `amp.weights()` take the standard outcome titles.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

from grader.amp import checks as amp_checks
from grader.amp.registry import OUTCOME_TITLES
from grader.loader import Exercise

Titles = dict[str, dict[str, str]]  # check slug -> lang -> title

# amp.runs() and amp.weights() declare these slugs (grader.amp.kit).
_AMP_OUTCOMES = {"runs": "runs", "weights": "weights-match-reference"}


def _literal(node: ast.expr | None) -> object:
    try:
        return ast.literal_eval(node) if node is not None else None
    except ValueError:
        return None


def _texts(value: object) -> dict[str, str] | None:
    """A title as written: a string is English, a dict maps languages to texts."""
    if isinstance(value, str):
        return {"en": value}
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    return None


def _keyword(call: ast.Call, name: str) -> object:
    return _literal(next((k.value for k in call.keywords if k.arg == name), None))


def _name(func: ast.expr) -> tuple[str, str]:
    """("", "check") for check(...), ("amp", "check") for amp.check(...)."""
    if isinstance(func, ast.Name):
        return "", func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id, func.attr
    return "", ""


def _amp_title(call: ast.Call, attr: str) -> tuple[str, dict[str, str]] | None:
    """The slug and title an amp.check/runs/weights call declares."""
    given = _texts(_keyword(call, "title"))
    if attr == "check" and call.args:
        slug = _literal(call.args[0])
        if not isinstance(slug, str):
            return None
        try:
            registered = amp_checks.get(slug).title
        except KeyError:  # an unknown slug fails when graded; here it shows as its slug
            registered = {}
        return slug, given or dict(registered)
    if attr in _AMP_OUTCOMES:
        slug = _AMP_OUTCOMES[attr]
        return slug, given or dict(OUTCOME_TITLES[slug])
    return None


def titles_from_source(source: str) -> Titles:
    """Every check a test module declares, with its title in each language it has."""
    titles: Titles = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return titles
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for deco in node.decorator_list:
                if not (isinstance(deco, ast.Call) and _name(deco.func)[1] == "check" and deco.args):
                    continue
                slug = _literal(deco.args[0])
                if not isinstance(slug, str):
                    continue
                title = _texts(_keyword(deco, "title"))
                if title is None:
                    doc = (ast.get_docstring(node) or "").strip().splitlines()
                    title = {"en": doc[0]} if doc else {}
                titles[slug] = title
        elif isinstance(node, ast.Call):
            owner, attr = _name(node.func)
            if owner == "amp":
                found = _amp_title(node, attr)
                if found:
                    titles[found[0]] = found[1]
    return titles


@lru_cache(maxsize=256)
def _cached(path: Path, _mtime: int) -> Titles:
    return titles_from_source(path.read_text(encoding="utf-8"))


def check_titles(exercise: Exercise, lang: str) -> dict[str, str]:
    """check slug -> title in `lang` (English where the check has none in `lang`; else the slug)."""
    found: dict[str, str] = {}
    for path in sorted((exercise.path / "tests").glob("*.py")):
        for slug, title in _cached(path, path.stat().st_mtime_ns).items():
            found[slug] = title.get(lang) or title.get("en") or slug
    return found
