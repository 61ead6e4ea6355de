"""Finds lines in a learner's source for feedback: a nested def, or a call inside a function.

Exercise tests use these to point at the line that holds the mistake (`WindowDataset.__len__`,
the `.backward()` call of `train`, the `return` a wrong value leaves by, the loop a missing
per-batch call belongs in) rather than at the top of the function.
"""

from __future__ import annotations

import ast


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _find_def(tree: ast.AST, dotted: str) -> ast.AST | None:
    node: ast.AST | None = tree
    for name in dotted.split("."):
        found = None
        for child in ast.iter_child_nodes(node) if node is not None else ():
            is_def = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            if is_def and child.name == name:  # type: ignore[union-attr]
                found = child
                break
        node = found
    return node


def def_line(source: str, dotted: str) -> int | None:
    """The line of a def or class by dotted path, e.g. 'WindowDataset.__len__'; None if absent."""
    tree = _parse(source)
    node = _find_def(tree, dotted) if tree else None
    return getattr(node, "lineno", None)


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    if isinstance(call.func, ast.Name):
        return call.func.id
    return None


def call_lines(source: str, within: str, name: str) -> list[int]:
    """Lines inside def `within` (dotted) that call something named `name` (x.name() or name())."""
    tree = _parse(source)
    scope = _find_def(tree, within) if tree else None
    if scope is None:
        return []
    lines = {node.lineno for node in ast.walk(scope)
             if isinstance(node, ast.Call) and _called_name(node) == name}
    return sorted(lines)


def call_line(source: str, within: str, name: str, default: int | None = None) -> int | None:
    """The first line inside `within` that calls `name`, or `default` (say, the def's line)."""
    lines = call_lines(source, within, name)
    return lines[0] if lines else default


def return_line(source: str, within: str, default: int | None = None) -> int | None:
    """The last `return` statement of def `within` (dotted), or `default`: where a wrong value leaves."""
    tree = _parse(source)
    scope = _find_def(tree, within) if tree else None
    if scope is None:
        return default
    nested = {id(n) for d in ast.walk(scope) if d is not scope
              and isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for n in ast.walk(d)}
    lines = [n.lineno for n in ast.walk(scope) if isinstance(n, ast.Return) and id(n) not in nested]
    return max(lines) if lines else default


def loop_line(source: str, within: str, default: int | None = None) -> int | None:
    """The first for/while loop inside def `within` (dotted), or `default`: where a per-batch call belongs."""
    tree = _parse(source)
    scope = _find_def(tree, within) if tree else None
    if scope is None:
        return default
    lines = [n.lineno for n in ast.walk(scope) if isinstance(n, (ast.For, ast.While, ast.AsyncFor))]
    return min(lines) if lines else default
