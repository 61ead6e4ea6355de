"""No import cycle in app or grader goes through a function-level import (a "late" import hides a cycle).

import-linter's layers (pyproject.toml) keep the grader's modules and the app above the grader
in order; inside one layer this test does the rest. The only cycles left are module-level ones
of Flask's blueprint pattern (a package's __init__ imports its views, which import its bp).
"""

from __future__ import annotations

from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[1]

# Cycles known and owned elsewhere: the pair of modules, and why it is not fixed here.
KNOWN: dict[frozenset[str], str] = {}


def _cycles(graph: grimp.ImportGraph) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(edges[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def _source_line(module: str, line: int) -> str:
    base = REPO.joinpath(*module.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    return path.read_text(encoding="utf-8").splitlines()[line - 1]


def _late_imports(graph: grimp.ImportGraph, component: set[str]) -> list[str]:
    """The imports inside the cycle that are written in a function (indented)."""
    late = []
    for importer in sorted(component):
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & component):
            for detail in graph.get_import_details(importer=importer, imported=imported):
                text = _source_line(importer, detail["line_number"])
                if text[:1].isspace():
                    late.append(f"{importer}:{detail['line_number']} {text.strip()}")
    return late


def test_no_cycle_goes_through_a_function_level_import() -> None:
    graph = grimp.build_graph("app", "grader", exclude_type_checking_imports=True, cache_dir=None)
    problems = []
    for component in _cycles(graph):
        if frozenset(component) in KNOWN:
            continue
        late = _late_imports(graph, component)
        if late:
            problems.append(f"cycle {sorted(component)} through {late}")
    assert not problems, "\n".join(problems)


def test_known_cycles_are_still_there() -> None:
    # Once one is fixed, its entry goes (so the list never excuses a new cycle).
    graph = grimp.build_graph("app", "grader", exclude_type_checking_imports=True, cache_dir=None)
    components = {frozenset(c) for c in _cycles(graph)}
    assert set(KNOWN) <= components, f"fixed, drop from KNOWN: {set(KNOWN) - components}"


def test_a_late_import_cycle_is_found(tmp_path: Path, monkeypatch) -> None:
    # The check itself: two modules that import each other, one of them inside a function.
    package = tmp_path / "cyc"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("def f():\n    from cyc.high import g\n    return g\n")
    (package / "high.py").write_text("from cyc.low import f\n\n\ndef g():\n    return f\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("tests.test_import_cycles.REPO", tmp_path)
    graph = grimp.build_graph("cyc", cache_dir=None)
    [component] = _cycles(graph)
    assert component == {"cyc.low", "cyc.high"}
    assert _late_imports(graph, component) == ["cyc.low:2 from cyc.high import g"]
