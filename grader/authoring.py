"""Authoring errors: a folder's tests that cannot be collected, named by file, line and cause.

Two readings of one question, "can these tests run at all?": `collect_error` turns pytest's
collection report (a grading found it) into "tests/test_x.py:3: ModuleNotFoundError: ...";
`static_problems` answers cheaply without importing anything (the web app asks it whenever a
folder changes, before a learner can open it): syntax errors, imports that resolve nowhere,
`depends` written as a string and check declarations without a slug.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
import sys
from pathlib import Path

# Modules an exercise's tests may import that resolve only inside a grading (the pytest plugin
# provides grader.author's fixtures; the grader package itself sits beside this file).
GRADER_PACKAGE = "grader"
SANDBOX_REQUIREMENTS = Path(__file__).with_name("sandbox-requirements.txt")  # built into the image
CHECK_DECORATORS = ("check",)  # grader.author's @check(slug, ...)

# In pytest's long report: the frames name '/abs/path/tests/test_x.py:12' or 'File "...", line 12'.
_FRAME = re.compile(r'(?:File "(?P<file>[^"]+)", line (?P<line>\d+))|(?P<path>[^\s:"]+\.py):(?P<num>\d+)')
_CAUSE = re.compile(r"^E\s+(?P<cause>\S.*)$", re.M)


def collect_error(longrepr: str, tests_dir: Path, nodeid: str) -> str:
    """'tests/<file>:<line>: <cause>' from a failed collection report's text.

    The line is the last frame inside the exercise's tests (where the author looks), else the
    file alone; the cause is the last 'E ' line, pytest's own summary of the exception.
    """
    tests_dir = Path(tests_dir).resolve()
    file, line = f"tests/{nodeid}" if nodeid else "tests", None
    for match in _FRAME.finditer(longrepr):
        path = match.group("file") or match.group("path")
        number = match.group("line") or match.group("num")
        try:
            relative = Path(path).resolve().relative_to(tests_dir)
        except (ValueError, OSError):
            continue
        file, line = f"tests/{relative}", int(number)
    causes = [c.strip() for c in _CAUSE.findall(longrepr) if c.strip() and not c.strip().startswith("^")]
    cause = _summary(causes) or (longrepr.strip().splitlines() or ["collection failed"])[-1].strip()
    return f"{file}:{line}: {cause}" if line else f"{file}: {cause}"


def raised_error(error: BaseException, tests_dir: Path, nodeid: str) -> str:
    """'tests/<file>:<line>: <Type>: <message>' for an exception raised while a test module was
    imported: the line is its deepest frame inside the exercise's tests."""
    tests_dir = Path(tests_dir).resolve()
    file, line = f"tests/{nodeid}" if nodeid else "tests", None
    frame = error.__traceback__
    while frame is not None:
        try:
            relative = Path(frame.tb_frame.f_code.co_filename).resolve().relative_to(tests_dir)
            file, line = f"tests/{relative}", frame.tb_lineno
        except ValueError:
            pass
        frame = frame.tb_next
    cause = f"{type(error).__name__}: {error}".strip()
    return f"{file}:{line}: {cause}" if line else f"{file}: {cause}"


def _summary(causes: list[str]) -> str:
    """The exception's line among pytest's 'E' lines ('SyntaxError: ...' rather than its caret)."""
    for cause in reversed(causes):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Warning|Exit)\b", cause):
            return cause
    return causes[-1] if causes else ""


def _module_found(name: str, folder: Path) -> bool:
    top = name.split(".")[0]
    if top == GRADER_PACKAGE or top in sys.builtin_module_names:
        return True
    tests = folder / "tests"
    if (tests / f"{top}.py").is_file() or (tests / top / "__init__.py").is_file():
        return True  # a helper module beside the tests (importlib mode puts tests/ on no path)
    return _installed(top)


@functools.lru_cache(maxsize=256)
def _installed(top: str) -> bool:
    """Whether a top-level module can be imported where the tests run; asked once per name.

    The web process asks too, and its image has no torch (no learner code runs there): a package
    the sandbox image installs counts as found wherever this runs.
    """
    if top in sandbox_packages():
        return True
    try:
        return importlib.util.find_spec(top) is not None  # walks sys.path
    except (ImportError, ValueError):
        return False


@functools.lru_cache(maxsize=1)
def sandbox_packages() -> frozenset[str]:
    """The top-level modules of what the sandbox image installs (grader/sandbox-requirements.txt)."""
    names = set()
    for line in SANDBOX_REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        requirement = line.split("#", 1)[0].strip()
        if requirement:
            names.add(re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower().replace("-", "_"))
    return frozenset(names)


def _decorator_name(node: ast.expr) -> str:
    func = node.func if isinstance(node, ast.Call) else node
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _declaration_problems(nodes: list[ast.AST], label: str) -> list[str]:
    problems = []
    for node in nodes:
        if not isinstance(node, ast.Call) or _decorator_name(node) not in CHECK_DECORATORS:
            continue
        slug = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "slug"), None)
        if not (isinstance(slug, ast.Constant) and isinstance(slug.value, str)):
            problems.append(f"{label}:{node.lineno}: check(...) needs its slug as a string first argument")
        for keyword in node.keywords:
            if keyword.arg == "depends" and isinstance(keyword.value, ast.Constant) \
                    and isinstance(keyword.value.value, str):
                problems.append(f"{label}:{keyword.value.lineno}: depends must be a list of slugs, "
                                f"not a string: write depends=[{keyword.value.value!r}]")
    return problems


def _guarded_imports(nodes: list[ast.AST]) -> set[int]:
    """Imports inside `try: ... except ImportError:`: the author planned for them to be missing."""
    guarded: set[int] = set()
    for node in nodes:
        if isinstance(node, ast.Try) and any(
                handler.type is None or any(isinstance(n, ast.Name) and n.id in (
                    "ImportError", "ModuleNotFoundError", "Exception") for n in ast.walk(handler.type))
                for handler in node.handlers):
            guarded.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return guarded


def static_problems(folder: Path) -> list[str]:
    """What keeps a code folder's tests from being collected, found without importing them."""
    folder = Path(folder)
    tests = folder / "tests"
    if not tests.is_dir():
        return []
    problems: list[str] = []
    for path in sorted(tests.rglob("*.py")):
        label = str(path.relative_to(folder))
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=label)
        except SyntaxError as exc:
            problems.append(f"{label}:{exc.lineno}: SyntaxError: {exc.msg}")
            continue
        except UnicodeDecodeError as exc:
            problems.append(f"{label}: not UTF-8 text ({exc.reason})")
            continue
        nodes = list(ast.walk(tree))  # walked once: a page may be waiting for this (app.content.exercises)
        guarded = _guarded_imports(nodes)
        for node in nodes:
            if id(node) in guarded or not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level
                     else [])
            problems += [f"{label}:{node.lineno}: ModuleNotFoundError: No module named '{name}'"
                         for name in names if not _module_found(name, folder)]
        problems += _declaration_problems(nodes, label)
    return problems
