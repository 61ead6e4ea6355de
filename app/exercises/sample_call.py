"""What a learner can add to try their functions when Run prints nothing: the exercise's own
`sample_call`, else a call of its entry with the starter's parameter names."""

from __future__ import annotations

import ast

from grader.api import Exercise


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    names = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    # Parameters with defaults may be left out of a first try; self never appears in a call.
    required = len(names) - len(node.args.defaults)
    return [name for name in names[:required] if name != "self"]


def generated_call(entry: str, starter: str) -> str | None:
    """`print(entry(a, b))` from the starter's def (or class __init__) of the entry."""
    try:
        tree = ast.parse(starter)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == entry:
            return f"print({entry}({', '.join(_parameters(node))}))"
        if isinstance(node, ast.ClassDef) and node.name == entry:
            init = next((item for item in node.body
                         if isinstance(item, ast.FunctionDef) and item.name == "__init__"), None)
            return f"print({entry}({', '.join(_parameters(init)) if init else ''}))"
    return None


def sample_call(exercise: Exercise, starter: str) -> tuple[str, bool] | None:
    """(code to add, whether it runs as it is); None when the exercise has no entry to call."""
    if exercise.config.sample_call:
        return exercise.config.sample_call, True
    if not exercise.config.entry:
        return None
    call = generated_call(exercise.config.entry, starter)
    return (call, False) if call else None
