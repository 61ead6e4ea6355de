"""The suite's layout: every test folder is a package, and belongs to exactly one group of scripts/run-tests.sh."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
# Folders of data that tests read or grade (learner code, golden exercise folders), not tests.
DATA_PARTS = {"golden", "submissions", "corpus", "realworld", "attacks", "variants"}


def code_folders() -> list[Path]:
    """Every folder under tests/ that holds test modules or helpers (data folders left out)."""
    found = set()
    for path in TESTS.rglob("*.py"):
        if DATA_PARTS.isdisjoint(path.relative_to(TESTS).parts) and "__pycache__" not in path.parts:
            found.add(path.parent)
    return sorted(found)


def serial_dirs() -> set[str]:
    """The folders scripts/run-tests.sh runs as groups of their own."""
    script = (REPO / "scripts" / "run-tests.sh").read_text(encoding="utf-8")
    match = re.search(r'^SERIAL_DIRS="([^"]*)"', script, re.MULTILINE)
    assert match, "scripts/run-tests.sh no longer sets SERIAL_DIRS"
    return set(match.group(1).split())


def plain_testpaths() -> list[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["pytest"]["ini_options"]["testpaths"]


def test_every_test_folder_is_a_package() -> None:
    # Without __init__.py a module is named by its basename alone: two test_warm_pool.py
    # in different folders then fail collection ("import file mismatch").
    missing = [str(folder.relative_to(REPO)) for folder in code_folders() if not (folder / "__init__.py").is_file()]
    assert not missing, f"add an __init__.py (a one-line docstring) to: {missing}"


def test_plain_pytest_and_the_serial_groups_cover_tests_once() -> None:
    serial = serial_dirs()
    plain = plain_testpaths()
    assert serial == {"docker", "postgres", "browser"}
    for path in plain:
        assert (REPO / path).exists(), f"testpaths names {path}, which does not exist"
    for folder in code_folders():
        relative = folder.relative_to(TESTS)
        if relative == Path("."):
            continue  # the suite-wide conftest and helpers
        top = relative.parts[0]
        in_plain = f"tests/{top}" in plain
        assert in_plain != (top in serial), (
            f"tests/{top} must be in exactly one of pyproject's testpaths (the python group) "
            f"and run-tests.sh's SERIAL_DIRS")
    # Test modules at the top of tests/ are named one by one.
    for module in TESTS.glob("test_*.py"):
        assert f"tests/{module.name}" in plain, f"add tests/{module.name} to pyproject's testpaths"


def test_test_helpers_are_imported_from_the_root() -> None:
    # A bare `from layout_helpers import ...` works only when its folder is on sys.path (a
    # whole-folder run can hide that); from the root (tests.browser.layout_helpers) it always does.
    modules = [path for folder in code_folders() for path in folder.glob("*.py")]
    helper_names = {path.stem for path in modules
                    if not path.name.startswith(("test_", "__")) and path.name != "conftest.py"}
    bare = []
    for path in modules:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found = re.match(r"\s*(?:from|import)\s+([A-Za-z_][\w]*)\b", line)
            if found and (found.group(1) in helper_names or found.group(1).startswith("test_")):
                bare.append(f"{path.relative_to(TESTS.parent)}:{number}: {line.strip()}")
    assert not bare, "import test helpers from the root (tests.<folder>.<module>):\n" + "\n".join(bare)
