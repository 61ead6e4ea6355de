"""Static reading of a timed loop: does CUDA get synchronised before each clock read?

A CPU grader cannot run a learner's CUDA branch, so it reads the code instead. GPU work is
asynchronous: a step is timed honestly only if the GPU is waited for before the clock starts
and again before it stops. In the loop that reads the clock twice per step, a synchronisation
must come before the first read and another between the first and the last.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

CLOCKS = frozenset({
    "time.perf_counter", "perf_counter", "time.perf_counter_ns", "perf_counter_ns",
    "time.monotonic", "monotonic", "time.monotonic_ns", "time.time", "time.time_ns",
})


@dataclass(frozen=True)
class TimedLoop:
    """The loop that reads the clock, and the clock reads not preceded by a synchronisation."""

    line: int
    start_line: int
    stop_line: int
    unsynced_start: bool
    unsynced_stop: bool


def _name(call: ast.Call) -> str:
    return ast.unparse(call.func)


def _syncing_functions(tree: ast.Module) -> set[str]:
    """Names of the learner's own functions that (maybe through one another) synchronise.

    One walk per def, then a search up the callers: linear in the source, whatever the
    learner wrote (a chain of thousands of helpers included).
    """
    callers: dict[str, set[str]] = {}
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for call in ast.walk(node):
            if isinstance(call, ast.Call):
                name = _name(call)
                if name.endswith("synchronize"):
                    found.append(node.name)
                callers.setdefault(name, set()).add(node.name)
    syncing: set[str] = set()
    while found:
        name = found.pop()
        if name not in syncing:
            syncing.add(name)
            found.extend(callers.get(name, ()))
    return syncing


def _is_sync(call: ast.Call, syncing: set[str]) -> bool:
    name = _name(call)
    return name.endswith("synchronize") or name in syncing


def _position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def timed_loop(source: str) -> TimedLoop | None:
    """The innermost loop that reads the clock at least twice, read as above; None if none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    syncing = _syncing_functions(tree)
    best: tuple[int, ast.AST, list[ast.Call]] | None = None
    for loop in ast.walk(tree):
        if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
            continue
        calls = [node for statement in loop.body for node in ast.walk(statement)
                 if isinstance(node, ast.Call)]
        if sum(1 for call in calls if _name(call) in CLOCKS) < 2:
            continue
        size = sum(1 for _ in ast.walk(loop))
        if best is None or size < best[0]:
            best = (size, loop, calls)
    if best is None:
        return None
    _, loop, calls = best
    clocks = sorted(_position(call) for call in calls if _name(call) in CLOCKS)
    syncs = [_position(call) for call in calls if _is_sync(call, syncing)]
    first, last = clocks[0], clocks[-1]
    return TimedLoop(line=loop.lineno, start_line=first[0], stop_line=last[0],
                     unsynced_start=not any(at < first for at in syncs),
                     unsynced_stop=not any(first < at < last for at in syncs))
