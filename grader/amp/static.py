"""Static pass over the learner's source: calls, loops and autocast blocks, with their lines.

The trace says what ran; this pass adds what the trace cannot see (a call that never ran,
whether a line sits inside the loop or an autocast block). Where they disagree the trace wins.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

# Method and function names worth locating; the checks ask for them by name.
WATCHED = frozenset({
    "backward", "step", "update", "scale", "unscale_", "zero_grad", "clip_grad_norm_",
    "clip_grad_value_", "GradScaler", "autocast", "half", "bfloat16", "to", "item",
})


@dataclass(frozen=True)
class Call:
    name: str
    line: int
    function: str | None  # the enclosing def, None at module level
    loop_line: int | None  # the innermost enclosing for/while, if any
    autocast_line: int | None  # the enclosing `with ...autocast(...)`, if any
    receiver: str | None  # `scaler` in scaler.step(...), when it is a plain name


@dataclass
class StaticInfo:
    calls: list[Call] = field(default_factory=list)
    loops: list[tuple[int, int]] = field(default_factory=list)
    autocast_blocks: list[tuple[int, int]] = field(default_factory=list)
    defs: dict[str, int] = field(default_factory=dict)
    returns: dict[str, list[int]] = field(default_factory=dict)
    ok: bool = True

    @classmethod
    def from_source(cls, source: str) -> StaticInfo:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return cls(ok=False)
        info = cls()
        _Visitor(info).visit(tree)
        return info

    def find(self, name: str, *, receiver: str | None = None, in_loop: bool | None = None,
             function: str | None = None) -> list[Call]:
        found = [c for c in self.calls if c.name == name]
        if receiver is not None:
            found = [c for c in found if c.receiver == receiver]
        if in_loop is not None:
            found = [c for c in found if (c.loop_line is not None) == in_loop]
        if function is not None:
            found = [c for c in found if c.function == function]
        return found

    def first_line(self, name: str, **filters: object) -> int | None:
        found = self.find(name, **filters)  # type: ignore[arg-type]
        return found[0].line if found else None

    def loop_of(self, line: int | None) -> int | None:
        """The innermost loop containing a line."""
        if line is None:
            return None
        inner = [(start, end) for start, end in self.loops if start <= line <= end]
        return max(inner)[0] if inner else None

    def autocast_block_of(self, line: int | None) -> int | None:
        if line is None:
            return None
        inner = [(start, end) for start, end in self.autocast_blocks if start <= line <= end]
        return max(inner)[0] if inner else None

    def main_loop(self, function: str | None = None) -> int | None:
        """The first loop of a function (the loop over the batches), or of the file."""
        lines = [c.loop_line for c in self.calls
                 if c.loop_line is not None and (function is None or c.function == function)]
        if lines:
            return min(lines)
        return min((start for start, _ in self.loops), default=None)


def _callee(node: ast.Call) -> tuple[str | None, str | None]:
    func = node.func
    if isinstance(func, ast.Attribute):
        receiver = func.value.id if isinstance(func.value, ast.Name) else None
        return func.attr, receiver
    if isinstance(func, ast.Name):
        return func.id, None
    return None, None


def _is_autocast(node: ast.expr, aliases: set[str]) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr == "autocast"
    return isinstance(target, ast.Name) and (target.id == "autocast" or target.id in aliases)


class _Visitor(ast.NodeVisitor):
    def __init__(self, info: StaticInfo) -> None:
        self.info = info
        self.function: list[str] = []
        self.loops: list[int] = []
        self.withs: list[int] = []
        self.autocast_aliases: set[str] = set()

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        # `from torch import autocast as ac`: remember the alias so `with ac(...)` is found.
        for alias in node.names:
            if alias.name == "autocast" and alias.asname:
                self.autocast_aliases.add(alias.asname)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if not self.function:
            self.info.defs.setdefault(node.name, node.lineno)
        for decorator in node.decorator_list:
            if _is_autocast(decorator, self.autocast_aliases):
                end = node.end_lineno or node.lineno
                self.info.autocast_blocks.append((node.lineno, end))
        self.function.append(node.name)
        outer_loops, self.loops = self.loops, []
        self.generic_visit(node)
        self.loops = outer_loops
        self.function.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def _loop(self, node: ast.For | ast.While | ast.AsyncFor) -> None:
        self.info.loops.append((node.lineno, node.end_lineno or node.lineno))
        self.loops.append(node.lineno)
        self.generic_visit(node)
        self.loops.pop()

    visit_For = visit_While = visit_AsyncFor = _loop  # type: ignore[assignment]

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        autocast = any(_is_autocast(item.context_expr, self.autocast_aliases)
                       for item in node.items)
        if autocast:
            self.info.autocast_blocks.append((node.lineno, node.end_lineno or node.lineno))
            self.withs.append(node.lineno)
        self.generic_visit(node)
        if autocast:
            self.withs.pop()

    visit_AsyncWith = visit_With  # type: ignore[assignment]

    def visit_Return(self, node: ast.Return) -> None:
        if self.function:
            self.info.returns.setdefault(self.function[-1], []).append(node.lineno)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name, receiver = _callee(node)
        if name in self.autocast_aliases:
            name = "autocast"
        if name in WATCHED:
            self.info.calls.append(Call(
                name=name, line=node.lineno, function=self.function[-1] if self.function else None,
                loop_line=self.loops[-1] if self.loops else None,
                autocast_line=self.withs[-1] if self.withs else None, receiver=receiver,
            ))
        self.generic_visit(node)
