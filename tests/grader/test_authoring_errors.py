"""A broken exercise folder is its author's error: file, line and cause, never 'the grader failed'."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.authoring import collect_error, static_problems
from grader.grading import grade_code
from grader.loader import load_exercise
from grader.validate import AUTHORING, check_exercise

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
TESTS = "tests/test_module.py"


def broken_copy(tmp_path: Path, change) -> Path:  # type: ignore[no-untyped-def]
    """loop-module copied to a temp dir, its test file changed by `change(text) -> text`."""
    folder = tmp_path / "loop-module"
    shutil.copytree(EXERCISES / "loop-module", folder)
    path = folder / TESTS
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    return folder


def line_of(folder: Path, needle: str) -> int:
    text = (folder / TESTS).read_text(encoding="utf-8")
    return 1 + text[: text.index(needle)].count("\n")


def missing_import(text: str) -> str:
    return text.replace("import math\n", "import math\nimport no_such_helper\n", 1)


def syntax_error(text: str) -> str:
    return text.replace("EXPECTED_COUNT = ", "EXPECTED_COUNT = (", 1)


def depends_string(text: str) -> str:
    return text.replace('@check("is-module", given=True,', '@check("is-module", given=True, depends="runs",', 1)


def depends_variable(text: str) -> str:
    """`depends` as a string the source does not show as one: only importing the tests finds it."""
    return depends_string(text).replace('depends="runs"', "depends=DEPENDS", 1).replace(
        "SIZES = {", 'DEPENDS = "runs"\nSIZES = {', 1)


def test_the_real_folders_have_no_authoring_problem() -> None:
    for folder in sorted(EXERCISES.iterdir()):
        assert static_problems(folder) == [], folder.name


def test_a_web_process_without_torch_finds_no_problem_in_the_real_folders(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The web image has no torch (no learner code runs there) and asks this check before a
    # learner opens a folder: torch is the sandbox's, so every real folder stays available.
    import importlib.util

    from grader import authoring

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: None if name.split(".")[0] == "torch" else real(name, *rest))
    authoring._installed.cache_clear()
    try:
        assert "torch" in authoring.sandbox_packages()
        assert {folder.name: static_problems(folder) for folder in sorted(EXERCISES.iterdir())
                if (folder / "tests").is_dir() and static_problems(folder)} == {}
        assert authoring._installed("numpy") and not authoring._installed("not_a_module_anywhere")
    finally:
        authoring._installed.cache_clear()


@pytest.mark.parametrize("change,needle,cause", [
    (missing_import, "import no_such_helper", "ModuleNotFoundError: No module named 'no_such_helper'"),
    (syntax_error, "EXPECTED_COUNT = (", "SyntaxError"),
    (depends_string, 'depends="runs"', "depends must be a list of slugs, not a string: write depends=['runs']"),
])
def test_static_check_names_file_line_and_cause(tmp_path: Path, change, needle: str, cause: str) -> None:  # type: ignore[no-untyped-def]
    folder = broken_copy(tmp_path, change)
    problems = static_problems(folder)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{TESTS}:{line_of(folder, needle)}: "), problems
    assert cause in problems[0]


def test_static_check_names_a_check_without_slug(tmp_path: Path) -> None:
    folder = broken_copy(tmp_path, lambda t: t.replace('@check("is-module", given=True,', "@check(given=True,", 1))
    problems = static_problems(folder)
    assert problems == [f"{TESTS}:{line_of(folder, '@check(given=True,')}: check(...) needs its slug as a "
                        "string first argument"]


def test_an_import_inside_try_is_the_authors_choice(tmp_path: Path) -> None:
    folder = broken_copy(tmp_path, lambda t: t.replace(
        "import math\n", "import math\ntry:\n    import no_such_helper\nexcept ImportError:\n    pass\n", 1))
    assert static_problems(folder) == []


def test_collect_error_reads_pytests_report_text(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    text = (f"ImportError while importing test module '{tests}/test_x.py'.\nTraceback:\n"
            f"{tests}/test_x.py:7: in <module>\n    import nope\nE   ModuleNotFoundError: No module named 'nope'\n")
    assert collect_error(text, tests, "test_x.py") == "tests/test_x.py:7: ModuleNotFoundError: No module named 'nope'"


@pytest.mark.slow
@pytest.mark.parametrize("change,needle,cause", [
    (missing_import, "import no_such_helper", "ModuleNotFoundError: No module named 'no_such_helper'"),
    (depends_variable, "depends=DEPENDS", "TypeError: check 'is-module': depends must be a list of slugs"),
])
def test_grading_a_broken_folder_is_an_authoring_error(tmp_path: Path, change, needle: str, cause: str) -> None:  # type: ignore[no-untyped-def]
    folder = broken_copy(tmp_path, change)
    exercise = load_exercise(folder)
    doc = grade_code(exercise, (EXERCISES / "loop-module" / "solution.py").read_text(), sandbox="local")
    assert doc["status"] == "error" and doc["error_kind"] == "authoring", doc
    assert f"{TESTS}:{line_of(folder, needle)}: {cause}" in doc["message"]
    assert "grader itself failed" not in doc["message"] and "exit code" not in doc["message"]
    ja = grade_code(exercise, "x = 1\n", sandbox="local", lang="ja")
    assert ja["error_kind"] == "authoring" and "作成者側の誤り" in ja["message"]


@pytest.mark.slow
def test_an_unknown_fixture_is_an_authoring_error(tmp_path: Path) -> None:
    folder = broken_copy(tmp_path, lambda t: t.replace(
        "def test_is_module(built, learner):", "def test_is_module(built, learner, no_such_fixture):", 1))
    doc = grade_code(load_exercise(folder), (EXERCISES / "loop-module" / "solution.py").read_text(),
                     sandbox="local")
    assert doc["error_kind"] == "authoring", doc
    assert "tests/test_module.py:" in doc["message"] and "fixture 'no_such_fixture' not found" in doc["message"]


@pytest.mark.slow
def test_validate_and_the_cli_report_the_authoring_error(tmp_path: Path) -> None:
    folder = broken_copy(tmp_path, depends_variable)
    report = check_exercise(load_exercise(folder), "local")
    assert report.broken and not report.ok
    expected = f"{AUTHORING}{TESTS}:{line_of(folder, 'depends=DEPENDS')}: TypeError: check 'is-module'"
    assert report.problems[0].startswith(expected), report.problems
    assert not any("solution.py must pass" in p for p in report.problems)  # said once, as the author's
    # `grader validate .` inside the one folder: the folder is the exercise, whatever its name says
    done = subprocess.run([sys.executable, "-m", "grader", "validate", ".", "--no-mutants", "--sandbox", "local"],
                          cwd=folder, capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "FAIL loop-module" in done.stdout and expected in done.stdout, done.stdout
    graded = subprocess.run([sys.executable, "-m", "grader", "grade", str(folder), str(folder / "solution.py"),
                             "--sandbox", "local"], capture_output=True, text=True, check=False)
    assert "[authoring]" in graded.stdout and "TypeError: check 'is-module'" in graded.stdout, graded.stdout


def test_validate_names_a_folder_without_exercise_toml(tmp_path: Path) -> None:
    folder = tmp_path / "loop-module"
    shutil.copytree(EXERCISES / "loop-module", folder)
    (folder / "exercise.toml").unlink()
    done = subprocess.run([sys.executable, "-m", "grader", "validate", str(folder)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "exercise.toml: file is missing" in done.stdout, done.stdout
    empty = tmp_path / "nothing"
    empty.mkdir()
    done = subprocess.run([sys.executable, "-m", "grader", "validate", str(empty)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "holds no exercise folder" in done.stderr
