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
from grader.amp.registry import OUTCOME_TITLES, runs_title
from grader.loader import Exercise

Titles = dict[str, dict[str, str]]  # check slug -> lang -> title

# amp.runs() and amp.weights() declare these slugs (grader.amp.kit).
_AMP_OUTCOMES = {"runs": "runs", "weights": "weights-match-reference"}


class _NotLiteral(Exception):
    """An expression this reader does not evaluate (anything but literals, constants, f-strings)."""


def _evaluate(node: ast.expr, names: dict[str, object]) -> object:
    """A literal, a module-level constant, or an f-string of those; nothing is executed."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_evaluate(k, names): _evaluate(v, names)  # type: ignore[arg-type]
                for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.Tuple):
        return tuple(_evaluate(item, names) for item in node.elts)
    if isinstance(node, ast.Subscript):  # PARAMS["accum_steps"] of a constant dict
        container, key = _evaluate(node.value, names), _evaluate(node.slice, names)
        if isinstance(container, dict | list | tuple):
            try:
                return container[key]  # type: ignore[index]
            except (KeyError, IndexError, TypeError):
                raise _NotLiteral from None
        raise _NotLiteral
    if isinstance(node, ast.JoinedStr):
        parts = []
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                if part.conversion != -1:
                    raise _NotLiteral
                spec = _evaluate(part.format_spec, names) if part.format_spec is not None else ""
                parts.append(format(_evaluate(part.value, names), str(spec)))
            else:
                parts.append(str(_evaluate(part, names)))
        return "".join(parts)
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise _NotLiteral from None


def _literal(node: ast.expr | None, names: dict[str, object] | None = None) -> object:
    try:
        return _evaluate(node, names or {}) if node is not None else None
    except (_NotLiteral, TypeError, ValueError):
        return None


def _constants(tree: ast.Module) -> dict[str, object]:
    """Module-level `NAME = literal` (or `A, B = x, y` of those): titles may be f-strings of them."""
    found: dict[str, object] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], _literal(node.value, found)
        if isinstance(target, ast.Name) and value is not None:
            found[target.id] = value
        elif (isinstance(target, ast.Tuple) and isinstance(value, tuple) and len(value) == len(target.elts)
              and all(isinstance(name, ast.Name) for name in target.elts)):
            found.update({name.id: item for name, item in zip(target.elts, value, strict=True)})  # type: ignore[attr-defined]
    return found


def _texts(value: object) -> dict[str, str] | None:
    """A title as written: a string is English, a dict maps languages to texts."""
    if isinstance(value, str):
        return {"en": value}
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    return None


def _keyword(call: ast.Call, name: str, names: dict[str, object]) -> object:
    return _literal(next((k.value for k in call.keywords if k.arg == name), None), names)


def _name(func: ast.expr) -> tuple[str, str]:
    """("", "check") for check(...), ("amp", "check") for amp.check(...)."""
    if isinstance(func, ast.Name):
        return "", func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id, func.attr
    return "", ""


def _amp_title(call: ast.Call, attr: str, names: dict[str, object],
               entry: str) -> tuple[str, dict[str, str]] | None:
    """The slug and title an amp.check/runs/weights call declares (`entry`: the function runs names)."""
    given = _texts(_keyword(call, "title", names))
    if attr == "check" and call.args:
        slug = _literal(call.args[0], names)
        if not isinstance(slug, str):
            return None
        try:
            registered = amp_checks.get(slug).title
        except KeyError:  # an unknown slug fails when graded; here it shows as its slug
            registered = {}
        return slug, given or dict(registered)
    if attr in _AMP_OUTCOMES:
        slug = _AMP_OUTCOMES[attr]
        return slug, given or (runs_title(entry) if slug == "runs" else dict(OUTCOME_TITLES[slug]))
    return None


def titles_from_source(source: str, entry: str = "train_one_epoch") -> Titles:
    """Every check a test module declares, with its title in each language it has (`entry`: the
    function an AMP scenario calls, which amp.runs' standard title names)."""
    titles: Titles = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return titles
    names = _constants(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for deco in node.decorator_list:
                if not (isinstance(deco, ast.Call) and _name(deco.func)[1] == "check" and deco.args):
                    continue
                slug = _literal(deco.args[0], names)
                if not isinstance(slug, str):
                    continue
                title = _texts(_keyword(deco, "title", names))
                if title is None:
                    doc = (ast.get_docstring(node) or "").strip().splitlines()
                    title = {"en": doc[0]} if doc else {}
                titles[slug] = title
        elif isinstance(node, ast.Call):
            owner, attr = _name(node.func)
            if owner == "amp":
                found = _amp_title(node, attr, names, entry)
                if found:
                    titles[found[0]] = found[1]
    return titles


@lru_cache(maxsize=256)
def _cached(path: Path, _mtime: int, entry: str) -> Titles:
    return titles_from_source(path.read_text(encoding="utf-8"), entry)


def check_titles(exercise: Exercise, lang: str) -> dict[str, str]:
    """check slug -> title in `lang` (English where the check has none in `lang`; else the slug)."""
    found: dict[str, str] = {}
    scenario = exercise.config.amp
    entry = scenario.entry_or(exercise.config.entry) if scenario else exercise.config.entry or "train_one_epoch"
    for path in sorted((exercise.path / "tests").glob("*.py")):
        for slug, title in _cached(path, path.stat().st_mtime_ns, entry).items():
            found[slug] = title.get(lang) or title.get("en") or slug
    return found
