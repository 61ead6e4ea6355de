"""Static pass over the learner's source: calls, loops and autocast blocks, with their lines.

The trace says what ran; this pass adds what the trace cannot see (a call that never ran,
whether a line sits inside the loop or an autocast block). Where they disagree the trace wins.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

# A condition that tests the machine: it reads a device, CUDA's presence or a device name.
_DEVICE_TEST = re.compile(r"cuda|is_available|\bcpu\b|device")
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
    nargs: int = 0  # positional and keyword arguments: scaler.step(optimizer) has one
    on_scaled: bool = False  # called on what scaler.scale(...) returned: scaler.scale(loss).backward()


@dataclass(frozen=True)
class Switch:
    """A test of the machine that decides whether autocast runs (`if device.type == "cuda":`)."""

    line: int  # where the condition is written (an assignment's line for a named flag)
    text: str  # the condition as the learner wrote it
    autocast_line: int  # the autocast call it switches
    span: tuple[int, int]  # the lines the switch governs (an if statement: both branches)


@dataclass(frozen=True)
class Division:
    """A mean computed by a division: `total / len(loader)` or `loss = total / i`."""

    line: int
    divisor: str  # the divisor as written: `i`, `n_samples`, `len(loader)`


@dataclass
class StaticInfo:
    calls: list[Call] = field(default_factory=list)
    loops: list[tuple[int, int]] = field(default_factory=list)
    autocast_blocks: list[tuple[int, int]] = field(default_factory=list)
    defs: dict[str, int] = field(default_factory=dict)
    returns: dict[str, list[int]] = field(default_factory=dict)
    switches: list[Switch] = field(default_factory=list)
    divisions: dict[str, Division] = field(default_factory=dict)  # per function: what its return divides
    conditions: list[tuple[int, int, int]] = field(default_factory=list)  # an if: its line, its body's first and last
    ok: bool = True

    @classmethod
    def from_source(cls, source: str) -> StaticInfo:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return cls(ok=False)
        info = cls()
        _Visitor(info).visit(tree)
        info.switches = _switches(tree, source)
        info.divisions = _divisions(tree, source)
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

    def condition_of(self, line: int | None) -> int | None:
        """The line of the innermost `if` whose body holds a line (`if (i + 1) % k == 0:` of a step)."""
        if line is None:
            return None
        inner = [(first, test) for test, first, last in self.conditions if first <= line <= last]
        return max(inner)[1] if inner else None

    def switch_around(self, line: int | None) -> Switch | None:
        """The machine test that governs a line (the branch it sits in), if any."""
        if line is None:
            return None
        inner = [s for s in self.switches if s.span[0] <= line <= s.span[1]]
        return max(inner, key=lambda s: s.span[0]) if inner else None

    def main_loop(self, function: str | None = None) -> int | None:
        """The first loop of a function (the loop over the batches), or of the file."""
        lines = [c.loop_line for c in self.calls
                 if c.loop_line is not None and (function is None or c.function == function)]
        if lines:
            return min(lines)
        return min((start for start, _ in self.loops), default=None)


def _segment(source: str, node: ast.AST) -> str:
    return ast.get_source_segment(source, node) or ast.unparse(node)


def _has_autocast(node: ast.AST) -> int | None:
    """The line of the first autocast call inside a node (any spelling ending in `autocast`)."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call) and _is_autocast(inner, set()):
            return inner.lineno
    return None


def _flags(function: ast.AST, source: str) -> dict[str, tuple[int, str]]:
    """Names assigned a machine test in a function: `use_amp = (device == 'cuda')` -> (line, text)."""
    found: dict[str, tuple[int, str]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            name = target.id if isinstance(target, ast.Name) else (
                target.attr if isinstance(target, ast.Attribute) else None)
            text = _segment(source, node.value)
            if name and _DEVICE_TEST.search(text) and not isinstance(node.value, ast.Call):
                found[name] = (node.lineno, text)
    return found


def _machine_test(test: ast.expr, source: str, flags: dict[str, tuple[int, str]],
                  fallback_line: int) -> tuple[int, str] | None:
    """(line, text) when an expression tests the machine, directly or through a named flag."""
    text = _segment(source, test)
    if _DEVICE_TEST.search(text):
        return fallback_line, text
    for node in ast.walk(test):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if name in flags:
            line, flag = flags[name]
            return line, f"{name} = {flag}"
    return None


def _switches(tree: ast.Module, source: str) -> list[Switch]:
    """Where autocast runs only on some machines: an if, a conditional expression, or enabled=."""
    found: list[Switch] = []
    flags = _flags(tree, source)
    for node in ast.walk(tree):
        span = (node.lineno, getattr(node, "end_lineno", None) or node.lineno) if hasattr(node, "lineno") else None
        if isinstance(node, (ast.If, ast.IfExp)) and span is not None:
            branches = [*node.body, *node.orelse] if isinstance(node, ast.If) else [node.body, node.orelse]
            at = next((line for b in branches if (line := _has_autocast(b)) is not None), None)
            test = _machine_test(node.test, source, flags, node.test.lineno)
            if at is not None and test is not None:
                found.append(Switch(test[0], test[1], at, span))
        elif isinstance(node, ast.Call) and _is_autocast(node, set()) and span is not None:
            for keyword in node.keywords:
                if keyword.arg == "enabled":
                    test = _machine_test(keyword.value, source, flags, node.lineno)
                    if test is not None:
                        found.append(Switch(test[0], test[1], node.lineno, span))
    return found


def _divisions(tree: ast.Module, source: str) -> dict[str, Division]:
    """Per function, the division its last return hands back: in the return, or in the name's last assignment."""
    found: dict[str, Division] = {}
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        returns = [n for n in ast.walk(function) if isinstance(n, ast.Return) and n.value is not None]
        if not returns:
            continue
        value = _unwrapped(max(returns, key=lambda n: n.lineno).value)
        if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Div, ast.FloorDiv)):
            found[function.name] = Division(value.lineno, _segment(source, value.right))
            continue
        if not isinstance(value, ast.Name):
            continue
        assigned = []
        for node in ast.walk(function):
            targets = node.targets if isinstance(node, ast.Assign) else []
            assigned_value = _unwrapped(node.value) if isinstance(node, ast.Assign) else None
            if any(isinstance(t, ast.Name) and t.id == value.id for t in targets) \
                    and isinstance(assigned_value, ast.BinOp) \
                    and isinstance(assigned_value.op, (ast.Div, ast.FloorDiv)):
                assigned.append((node.lineno, _segment(source, assigned_value.right)))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                    and node.target.id == value.id and isinstance(node.op, (ast.Div, ast.FloorDiv)):
                assigned.append((node.lineno, _segment(source, node.value)))
        before = [a for a in assigned if a[0] <= value.lineno]
        if before:
            line, divisor = max(before)
            found[function.name] = Division(line, divisor)
    return found


# Calls that hand a division's value on unchanged for this purpose: `float(total / n)`,
# `round(total / n, 4)`, `(total / n).item()`.
_PASS_THROUGH = frozenset({"float", "round", "abs"})


def _unwrapped(node: ast.expr) -> ast.expr:
    """The expression inside float(...), round(..., k) or (...).item(), else the node itself."""
    for _ in range(3):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _PASS_THROUGH \
                and node.args:
            node = node.args[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "item" and not node.args:
            node = node.func.value
        else:
            break
    return node


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

    def visit_If(self, node: ast.If) -> None:
        if node.body:
            self.info.conditions.append((node.lineno, node.body[0].lineno,
                                         node.body[-1].end_lineno or node.body[-1].lineno))
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        if self.function:
            self.info.returns.setdefault(self.function[-1], []).append(node.lineno)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name, receiver = _callee(node)
        if name in self.autocast_aliases:
            name = "autocast"
        if name in WATCHED:
            func = node.func
            on_scaled = (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)
                         and _callee(func.value)[0] == "scale")
            self.info.calls.append(Call(
                name=name, line=node.lineno, function=self.function[-1] if self.function else None,
                loop_line=self.loops[-1] if self.loops else None,
                autocast_line=self.withs[-1] if self.withs else None, receiver=receiver,
                nargs=len(node.args) + len(node.keywords), on_scaled=on_scaled,
            ))
        self.generic_visit(node)
