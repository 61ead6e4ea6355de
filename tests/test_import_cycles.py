"""No import cycle in app or grader goes through a function-level import, and no late import dodges one.

import-linter's layers (pyproject.toml) keep the grader's modules and the app above the grader
in order; inside one layer this test does the rest. The only cycles left are module-level ones
of Flask's blueprint pattern (a package's __init__ imports its views, which import its bp).
Every function-level import of a project module is listed below with its reason (LATE_IMPORTS).
"""

from __future__ import annotations

import ast
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


# ---- late imports: each one has a reason, and no reason is a cycle ------------------------------
# The rule: every import of an app or grader module written inside a function is listed here,
# "importer -> imported", with why it is late. A reason may not be a cycle: a late import whose
# imported package (app.X, grader.X: the first two names) reaches the importer's package again,
# so that hoisting it would leave the two packages importing each other, is a cycle dodged, and
# only TODO_CYCLES may hold one (each owned, named "TODO cycle: X <-> Y", and dropped once fixed).
LAZY_TORCH = "the grader loads torch on demand: the web process never imports it for a page"
TORCH_LOADED = "needed only when torch is already loaded; this module's own import set stays minimal"
LATE_IMPORTS: dict[str, str] = {
    **{f"app -> app.{name}": "Flask's app factory: create_app registers each blueprint on the app it makes"
       for name in ("accounts", "api", "exercises", "instructor", "lessons", "progress", "quizzes")},
    "app.accounts.login -> app.accounts.cli": "the `flask users` commands load only when an app is made",
    "app.accounts.emails -> app.accounts.lookalikes": "the confusables table loads on the first email check, "
                                                      "not with every module that reads an email",
    **{f"app.grading.celery_app -> {name}": "a Celery worker's tasks and signals: the job code loads in the "
                                            "process that runs it, after the Flask app is made"
       for name in ("app.extensions", "app.grading.lost", "app.grading.worker", "app.grading.runs",
                    "app.grading.maintenance", "app.grading.handle")},
    "app.grading.celery_app -> grader.api": LAZY_TORCH,
    "app.grading.checks -> grader.api": LAZY_TORCH,
    "app.grading.runs -> grader.api": LAZY_TORCH,
    "app.grading.worker -> grader.api": LAZY_TORCH,
    "grader.cli -> grader.validate": "each command loads only what it runs (`validate` needs the sandboxes)",
    "grader.cli -> grader.harness": "each command loads only what it runs (`harness` needs pytest and torch)",
    "grader.sandboxes -> grader.sandboxes.docker": "the docker sandbox loads only when asked for or detected",
    "grader.harness -> grader.amp.lazy_dynamo": TORCH_LOADED,
    "grader.runner -> grader.amp.lazy_dynamo": TORCH_LOADED,
    "grader.runner_fork -> grader.amp.lazy_dynamo": TORCH_LOADED,
    "grader.runner -> grader.scenarios": "the scenarios import torch: loaded when the runner preloads or runs one",
    "grader.runner_fork -> grader.runner": "the fork server stays light: the runner loads in prepare() and each child",
    "grader.sandboxes.warm_entry -> grader.sandboxes.lane": "the entry reads its options before it loads anything",
    **{f"{name} -> grader.sandboxes.jail": "only a jailed job loads the jail (ctypes, Landlock, pyseccomp)"
       for name in ("grader.cli", "grader.sandboxes.warm_entry", "grader.sandboxes.zygote")},
    **{f"grader.sandboxes.docker.slot_entry -> {name}": "the slot's supervisor reads its options, then imports "
                                                        "the grading side (torch, pytest) when it prepares"
       for name in ("grader.sandboxes.jail", "grader.sandboxes.zygote", "grader.learner_errors",
                    "grader.runner_fork", "grader.learner", "grader.sandboxes.warm_entry", "grader.schema")},
    "grader.sandboxes.jail -> grader": "the package's own folder, found when a job's readable paths are listed",
    "grader.sandboxes.zygote_client -> grader": "the package's own folder, found when a fresh interpreter's "
                                                "PYTHONPATH is made",
    **{f"grader.sandboxes.warm_entry -> {name}": "a warm sandbox imports the grading side (torch, pytest) "
                                                 "only in the process that grades, after its options are read"
       for name in ("grader.runner_fork", "grader.learner", "grader.learner_errors", "grader.schema",
                    "grader.harness", "grader.loader", "grader.messages", "grader.results", "grader.author",
                    "grader.plugin")},
    "grader.sandboxes.zygote -> grader.runner_fork": "the zygote imports the grading side when it prepares, "
                                                     "not when the host process imports the sandbox",
    "grader.sandboxes.zygote -> grader.sandboxes.warm_entry": "the zygote imports the grading side when it "
                                                              "prepares, not when the host process imports it",
}
TODO_CYCLES: dict[str, str] = {}  # none left: app/ is layered (pyproject.toml), each cycle was untangled
_CYCLE_WORDS = ("cycle", "circular")


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _late_project_imports(root: Path, packages: tuple[str, ...]) -> dict[str, list[str]]:
    """'importer -> imported' for each import of a project module inside a function, and where."""
    found: dict[str, list[str]] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            importer = _module_name(path, root)
            functions = [node for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                         if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
            for node in {sub for function in functions for sub in ast.walk(function)}:
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    # `from grader import runner_fork` imports the module grader.runner_fork.
                    names = [f"{node.module}.{alias.name}"
                             if (root / node.module.replace(".", "/") / f"{alias.name}.py").is_file()
                             or (root / node.module.replace(".", "/") / alias.name).is_dir()
                             else node.module for alias in node.names]
                else:
                    continue
                for imported in names:
                    if imported.split(".")[0] in packages:
                        found.setdefault(f"{importer} -> {imported}", []).append(
                            f"{path.relative_to(root)}:{node.lineno}")
    return found


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _closes_a_package_cycle(graph: grimp.ImportGraph, late: str, ignored: set[str]) -> bool:
    """Whether the imported module's package reaches the importer's again (late imports in `ignored` aside)."""
    importer, imported = late.split(" -> ")
    source, target = _package(imported), _package(importer)
    if source == target:
        return False  # inside one package the module-level cycle test above decides
    skip = {tuple(pair.split(" -> ")) for pair in ignored}
    edges: dict[str, set[str]] = {}
    for module in graph.modules:
        for other in graph.find_modules_directly_imported_by(module):
            if (module, other) not in skip and _package(module) != _package(other):
                edges.setdefault(_package(module), set()).add(_package(other))
    seen, todo = set(), [source]
    while todo:
        package = todo.pop()
        if package == target:
            return True
        if package not in seen:
            seen.add(package)
            todo.extend(edges.get(package, ()))
    return False


def test_every_late_import_is_listed_with_a_reason_that_is_no_cycle() -> None:
    found = _late_project_imports(REPO, ("app", "grader"))
    listed = {**LATE_IMPORTS, **TODO_CYCLES}
    unlisted = {late: where for late, where in found.items() if late not in listed}
    assert not unlisted, f"a function-level import without a reason in LATE_IMPORTS: {unlisted}"
    assert not set(listed) - set(found), f"no longer late, drop from the lists: {set(listed) - set(found)}"
    excuses = [late for late, reason in LATE_IMPORTS.items() if any(w in reason.lower() for w in _CYCLE_WORDS)]
    assert not excuses, f"a cycle is no reason for a late import (move the code instead): {excuses}"
    assert all(reason.startswith("TODO cycle: ") for reason in TODO_CYCLES.values())


def test_no_late_import_dodges_a_package_cycle() -> None:
    graph = grimp.build_graph("app", "grader", exclude_type_checking_imports=True, cache_dir=None)
    dodging = [late for late in _late_project_imports(REPO, ("app", "grader"))
               if late not in TODO_CYCLES and _closes_a_package_cycle(graph, late, set(TODO_CYCLES))]
    assert not dodging, f"late imports that dodge a package cycle (move the shared code down): {dodging}"
    fixed = [late for late in TODO_CYCLES if not _closes_a_package_cycle(graph, late, set(TODO_CYCLES) - {late})]
    assert not fixed, f"no longer a cycle, drop from TODO_CYCLES: {fixed}"


def test_a_late_import_that_dodges_a_package_cycle_is_found(tmp_path: Path, monkeypatch) -> None:
    # The check itself: pkg.low's function imports pkg.high, whose package imports pkg.low's.
    for folder in ("pkg", "pkg/low", "pkg/high"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "pkg/low/rules.py").write_text("def f():\n    from pkg.high.view import g\n    return g\n")
    (tmp_path / "pkg/high/view.py").write_text("from pkg.low.rules import f\n\n\ndef g():\n    return f\n")
    (tmp_path / "pkg/low/calm.py").write_text("def h():\n    from pkg import low\n    return low\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("pkg", cache_dir=None)
    found = _late_project_imports(tmp_path, ("pkg",))
    assert found == {"pkg.low.rules -> pkg.high.view": ["pkg/low/rules.py:2"],
                     "pkg.low.calm -> pkg.low": ["pkg/low/calm.py:2"]}
    assert _closes_a_package_cycle(graph, "pkg.low.rules -> pkg.high.view", set())
    assert not _closes_a_package_cycle(graph, "pkg.low.calm -> pkg.low", set())
