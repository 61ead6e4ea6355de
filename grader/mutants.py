"""Mutants of a reference solution: each line removed, each AMP call moved or dropped, the return
changed, and the AMP mistakes a learner adds (a float16 model, a second GradScaler, a skipped batch,
clipping before unscale_).

`grader validate` grades every mutant and expects each to fail at least one check: a mutant
that passes everything is a mistake the exercise's checks cannot see (a missing check). The
mutants are ordinary source text graded through the same sandbox as learners' code.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# Calls of the training protocol whose order matters (optimizer, GradScaler, clipping).
PROTOCOL = frozenset({"backward", "step", "update", "unscale_", "zero_grad", "clip_grad_norm_",
                      "clip_grad_value_"})
MAX_MUTANTS = 120  # a bound on validate's work per exercise, whatever the solution's length


@dataclass(frozen=True)
class Mutant:
    """One changed copy of the solution and what was changed, for the author to read."""

    line: int
    change: str
    code: str


Path_ = tuple[tuple[str, int], ...]  # (field, index) steps from the module to a statement list


def _bodies(node: ast.AST, path: Path_ = ()) -> Iterator[tuple[Path_, list[ast.stmt]]]:
    """Every statement list under `node` (function bodies, loop and with bodies, branches)."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield (*path, (name, -1)), block
            for index, stmt in enumerate(block):
                yield from _bodies(stmt, (*path, (name, index)))
    for index, handler in enumerate(getattr(node, "handlers", []) or []):
        yield from _bodies(handler, (*path, ("handlers", index)))


def _block(tree: ast.Module, path: Path_) -> list[ast.stmt]:
    """The statement list at `path` in a copy of the tree."""
    node: ast.AST = tree
    for name, index in path[:-1]:
        node = getattr(node, name)[index]
    return getattr(node, path[-1][0])


def _in_function(path: Path_) -> bool:
    return len(path) > 1  # the module's own statements (imports, defs) are not the work


def _is_docstring(block: list[ast.stmt], index: int) -> bool:
    stmt = block[index]
    return index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
        and isinstance(stmt.value.value, str)


def _called(stmt: ast.stmt) -> set[str]:
    """The attribute or function names this statement calls (scaler.step -> 'step')."""
    names = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


def _is_autocast(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.With) and any("autocast" in _called(ast.Expr(item.context_expr))
                                               for item in stmt.items)


def _text(stmt: ast.AST) -> str:
    text = ast.unparse(stmt).splitlines()[0]
    return text if len(text) <= 60 else text[:57] + "..."


def _statement_mutants(tree: ast.Module) -> Iterator[tuple[int, str, Callable[[ast.Module], None]]]:
    """(line, change, edit) for every statement-level mutation; `edit` changes a copy in place."""
    for path, block in list(_bodies(tree)):
        if not _in_function(path):
            continue
        for index, stmt in enumerate(block):
            if _is_docstring(block, index) or isinstance(stmt, (ast.Pass, ast.Return)):
                continue  # a return is changed by _return_mutants instead

            def remove(t: ast.Module, path: Path_ = path, index: int = index) -> None:
                target = _block(t, path)
                del target[index]
                if not target:
                    target.append(ast.Pass())

            yield stmt.lineno, f"`{_text(stmt)}` removed", remove
            if _is_autocast(stmt):
                def unwrap(t: ast.Module, path: Path_ = path, index: int = index) -> None:
                    target = _block(t, path)
                    target[index:index + 1] = target[index].body  # type: ignore[attr-defined]

                yield stmt.lineno, "autocast dropped (its body runs in float32)", unwrap
                if index + 1 < len(block) and "backward" in _called(block[index + 1]):
                    def move_in(t: ast.Module, path: Path_ = path, index: int = index) -> None:
                        target = _block(t, path)
                        target[index].body.append(target.pop(index + 1))  # type: ignore[attr-defined]

                    yield block[index + 1].lineno, "backward moved into the autocast block", move_in
            protocol = _called(stmt) & PROTOCOL
            pair = protocol | (_called(block[index + 1]) & PROTOCOL if index + 1 < len(block) else set())
            # update() and zero_grad() touch different state: either order is right.
            if protocol and index + 1 < len(block) and _called(block[index + 1]) & PROTOCOL \
                    and pair != {"update", "zero_grad"}:
                def swap(t: ast.Module, path: Path_ = path, index: int = index) -> None:
                    target = _block(t, path)
                    target[index], target[index + 1] = target[index + 1], target[index]

                yield stmt.lineno, f"`{_text(stmt)}` swapped with the next line", swap
            if protocol and isinstance(stmt, ast.Expr) and path[-1][0] == "body" \
                    and isinstance(_parent(tree, path), (ast.For, ast.While)):
                for where in ("before", "after"):
                    def hoist(t: ast.Module, path: Path_ = path, index: int = index, where: str = where) -> None:
                        target = _block(t, path)
                        moved = target.pop(index)
                        if not target:
                            target.append(ast.Pass())
                        outer_path, loop_index = path[:-1], path[-2][1]
                        outer = _block(t, (*outer_path[:-1], (outer_path[-1][0], -1)))
                        outer.insert(loop_index + (where == "after"), moved)

                    yield stmt.lineno, f"`{_text(stmt)}` moved {where} the loop", hoist


def _parent(tree: ast.Module, path: Path_) -> ast.AST:
    node: ast.AST = tree
    for name, index in path[:-1]:
        node = getattr(node, name)[index]
    return node


class _CallRewriter(ast.NodeTransformer):
    """Rewrites the `n`-th call matching one rule; counts the matches on the way."""

    def __init__(self, rule: Callable[[ast.Call], ast.AST | None], target: int):
        self.rule, self.target, self.seen, self.line = rule, target, 0, 0
        self.call = ""  # the rewritten call as written: which one, on a line with several

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        replacement = self.rule(node)
        if replacement is None:
            return node
        self.seen += 1
        if self.seen - 1 == self.target:
            self.line, self.call = node.lineno, _text(node)
            return ast.copy_location(replacement, node)
        return node


def _attr_call(node: ast.Call, name: str) -> bool:
    return isinstance(node.func, ast.Attribute) and node.func.attr == name


def _drop_scale(node: ast.Call) -> ast.AST | None:  # scaler.scale(loss) -> loss
    return node.args[0] if _attr_call(node, "scale") and len(node.args) == 1 else None


def _direct_step(node: ast.Call) -> ast.AST | None:  # scaler.step(opt) -> opt.step()
    if _attr_call(node, "step") and len(node.args) == 1:
        return ast.Call(func=ast.Attribute(value=node.args[0], attr="step", ctx=ast.Load()), args=[], keywords=[])
    return None


def _drop_item(node: ast.Call) -> ast.AST | None:  # loss.item() -> loss (a tensor, holding the graph)
    if _attr_call(node, "item") and not node.args:
        return node.func.value  # type: ignore[attr-defined]
    return None


def _drop_float(node: ast.Call) -> ast.AST | None:  # float(x) -> x
    if isinstance(node.func, ast.Name) and node.func.id == "float" and len(node.args) == 1:
        return node.args[0]
    return None


def _drop_move(node: ast.Call) -> ast.AST | None:  # x.to(device) -> x
    return node.func.value if _attr_call(node, "to") else None  # type: ignore[attr-defined]


def _fp16_autocast(node: ast.Call) -> ast.AST | None:  # autocast(..., dtype=torch.bfloat16) -> float16
    if "autocast" not in _called(ast.Expr(node)) or not any(
            k.arg == "dtype" and "bfloat16" in ast.unparse(k.value) for k in node.keywords):
        return None
    changed = copy.deepcopy(node)
    for keyword in changed.keywords:
        if keyword.arg == "dtype":
            keyword.value = ast.parse("torch.float16", mode="eval").body
    return changed


def _drop_dim(node: ast.Call) -> ast.AST | None:  # x.sum(dim=0) -> x.sum(): over the whole tensor
    if not any(k.arg in ("dim", "keepdim") for k in node.keywords):
        return None
    changed = copy.deepcopy(node)
    changed.keywords = [k for k in changed.keywords if k.arg not in ("dim", "keepdim")]
    return changed


# Each change names the call it rewrote ({call}, as written): a line may hold two `.to()`.
CALL_RULES: tuple[tuple[str, Callable[[ast.Call], ast.AST | None]], ...] = (
    ("scaler.scale() dropped from `{call}`: backward on the unscaled loss", _drop_scale),
    ("`{call}` replaced by optimizer.step()", _direct_step),
    (".item() dropped from `{call}`: a tensor instead of a number", _drop_item),
    ("float() dropped from `{call}`", _drop_float),
    (".to() dropped from `{call}`: the tensor or model is not moved", _drop_move),
    ("autocast's bfloat16 replaced by float16 in `{call}`", _fp16_autocast),
    ("dim= dropped from `{call}`: over the whole tensor", _drop_dim),
)


def _return_mutants(tree: ast.Module) -> Iterator[tuple[int, str, Callable[[ast.Module], None]]]:
    returns = [node for node in ast.walk(tree) if isinstance(node, ast.Return) and node.value is not None
               and not (isinstance(node.value, ast.Constant) and node.value.value is None)]
    for number, node in enumerate(returns):
        def none(t: ast.Module, number: int = number) -> None:
            found = [n for n in ast.walk(t) if isinstance(n, ast.Return) and n.value is not None
                     and not (isinstance(n.value, ast.Constant) and n.value.value is None)]
            found[number].value = ast.Constant(None)

        yield node.lineno, f"`{_text(node)}` returns None instead", none


# -- mistakes a learner adds ---------------------------------------------------------------------
# Removing, moving and dropping calls only takes away: a check about something a learner adds
# (the model cast to float16, a GradScaler of its own, a batch skipped, clipping of still-scaled
# gradients) could then never fail on any mutant, and validate would rightly call it blind.


def _parameters(function: ast.FunctionDef) -> set[str]:
    return {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}


def _imports_torch(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.Import) and any(a.name == "torch" and a.asname is None for a in node.names)
               for node in tree.body)


def _body_start(function: ast.FunctionDef) -> int:
    """Where added statements go: after the docstring."""
    return 1 if _is_docstring(function.body, 0) else 0


def _functions(tree: ast.Module) -> list[ast.FunctionDef]:
    return [node for node in tree.body if isinstance(node, ast.FunctionDef)]


def _statement(code: str) -> ast.stmt:
    return ast.parse(code).body[0]


def _scaler_steps(function: ast.FunctionDef, scaler: str) -> list[ast.stmt]:
    """The statements of `function` that call `<scaler>.step(...)`."""
    found = []
    for node in ast.walk(function):
        for block in (getattr(node, name, None) for name in ("body", "orelse")):
            if isinstance(block, list):
                found += [stmt for stmt in block if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                          and _attr_call(stmt.value, "step") and isinstance(stmt.value.func.value, ast.Name)
                          and stmt.value.func.value.id == scaler]
    return found


def _added_mutants(tree: ast.Module) -> Iterator[tuple[int, str, Callable[[ast.Module], None]]]:
    """(line, change, edit) for each AMP mistake that adds code, where the solution gives it a place."""
    if not _imports_torch(tree):
        return
    amp = any(name in _called(tree) for name in ("autocast", "scale", "unscale_"))
    for number, function in enumerate(_functions(tree)):
        params, start = _parameters(function), _body_start(function)
        if start >= len(function.body):
            continue
        first = function.body[start].lineno

        def insert(code: str, number: int = number, start: int = start) -> Callable[[ast.Module], None]:
            def edit(t: ast.Module) -> None:
                _functions(t)[number].body.insert(start, _statement(code))
            return edit

        if amp and "model" in params:
            yield first, "`model.half()` added: the weights themselves in float16", insert("model.half()")
        if "scaler" in params and _scaler_steps(function, "scaler"):
            made = "torch.amp.GradScaler(device.type)" if "device" in params else "torch.amp.GradScaler()"
            yield first, f"`scaler = {made}` added: a scaler of its own, not the one passed in", \
                insert(f"scaler = {made}")
        if "model" in params and "scaler" in params and not _called(function) & {
                "unscale_", "clip_grad_norm_", "clip_grad_value_"}:
            for step in _scaler_steps(function, "scaler")[:1]:
                def clip(t: ast.Module, number: int = number, line: int = step.lineno) -> None:
                    for block in (b for _p, b in _bodies(_functions(t)[number])):
                        for index, stmt in enumerate(block):
                            if stmt.lineno == line and isinstance(stmt, ast.Expr):
                                block.insert(index, _statement(
                                    "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)"))
                                return

                yield (step.lineno, "`clip_grad_norm_` added before the step: the gradients are clipped "
                       "still scaled", clip)
        for loop in (n for n in ast.walk(function) if isinstance(n, ast.For)):
            if isinstance(loop.iter, ast.Name) and loop.iter.id in params:
                def skip(t: ast.Module, number: int = number, line: int = loop.lineno) -> None:
                    target = next(n for n in ast.walk(_functions(t)[number])
                                  if isinstance(n, ast.For) and n.lineno == line)
                    target.iter = ast.parse(f"itertools.islice({target.iter.id}, 1, None)", mode="eval").body
                    t.body.insert(0, _statement("import itertools"))

                yield loop.lineno, f"the first batch of `{loop.iter.id}` skipped (`itertools.islice`)", skip


def mutants(source: str) -> list[Mutant]:
    """Every mutant of `source` that differs from it, first by line; at most MAX_MUTANTS."""
    tree = ast.parse(source)
    original = ast.unparse(tree)
    found: dict[str, Mutant] = {}

    def add(line: int, change: str, code: str) -> None:
        if code != original and code not in found:
            found[code] = Mutant(line=line, change=change, code=code)

    for line, change, edit in [*_statement_mutants(tree), *_return_mutants(tree), *_added_mutants(tree)]:
        copied = copy.deepcopy(tree)
        edit(copied)
        add(line, change, ast.unparse(ast.fix_missing_locations(copied)))
    for change, rule in CALL_RULES:
        for number in range(64):
            rewriter = _CallRewriter(rule, number)
            copied = rewriter.visit(copy.deepcopy(tree))
            if rewriter.seen <= number:
                break
            add(rewriter.line, change.format(call=rewriter.call), ast.unparse(ast.fix_missing_locations(copied)))
    ordered = sorted(found.values(), key=lambda m: (m.line, m.change))
    return ordered[:MAX_MUTANTS]


def emptied(source: str, *, raising: bool = False) -> str:
    """The source with every function body replaced by `pass` (signatures kept): no work done.

    `raising`: by `raise NotImplementedError` instead, the other way a starter says "to do".
    """
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.body = [ast.Raise(exc=ast.Name("NotImplementedError", ast.Load()), cause=None)
                         if raising else ast.Pass()]
    return ast.unparse(ast.fix_missing_locations(tree))
