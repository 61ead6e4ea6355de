"""docs/exercises.md's worked example, copied into a new folder, validates (and earns nothing empty)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.api import grade_code
from grader.loader import load_exercise
from grader.validate import check_exercise

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "exercises.md"
BLOCK = re.compile(r"^```\w+ file=(\S+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def example_files() -> dict[str, str]:
    return {name: body for name, body in BLOCK.findall(GUIDE.read_text(encoding="utf-8"))}


def copy_example(root: Path) -> Path:
    files = example_files()
    folder = root / re.search(r'^id = "(.+)"$', files["exercise.toml"], re.MULTILINE).group(1)
    for name, body in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(body, encoding="utf-8")
    return folder


def test_the_guide_has_a_complete_example(tmp_path: Path) -> None:
    files = example_files()
    assert {"exercise.toml", "prompt.md", "starter.py", "solution.py", "hints.md"} <= set(files)
    assert any(name.startswith("tests/test_") for name in files)
    folder = copy_example(tmp_path)
    assert load_exercise(folder).id == folder.name
    from tests.lessons.test_hints import gives_away

    assert not gives_away(files["hints.md"], files["solution.py"])


@pytest.mark.slow
def test_the_worked_example_validates(tmp_path: Path) -> None:
    folder = copy_example(tmp_path)
    exercise = load_exercise(folder)
    report = check_exercise(exercise, sandbox="local")
    assert report.ok, report.problems
    empty = grade_code(exercise, "def softmax_rows(x):\n    pass\n", sandbox="local")
    assert empty["score"] == 0 and empty["status"] == "fail"
