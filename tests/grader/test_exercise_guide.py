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


# ---- the grader.author reference, the AMP scenario settings and the AMP example ----------------------
AMP_BLOCK = re.compile(r"^```\w+ amp-file=(\S+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def section(heading: str) -> str:
    """The text of the guide's `## <heading>` section, up to the next `## `."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(f"## {heading}")
    following = text.find("\n## ", start + 3)
    return text[start:following if following != -1 else len(text)]


def table_names(text: str) -> list[str]:
    """The names in the first column of the section's tables: | `name` | ... |."""
    return re.findall(r"^\| `([^`]+)` \|", text, re.MULTILINE)


def test_the_guide_documents_every_name_of_grader_author() -> None:
    import grader.author

    documented = table_names(section("10. Reference: `grader.author`"))
    assert len(documented) == len(set(documented)), "a name is documented twice"
    assert set(documented) == set(grader.author.__all__), (
        f"undocumented: {sorted(set(grader.author.__all__) - set(documented))}; "
        f"documented but not exported: {sorted(set(documented) - set(grader.author.__all__))}")


def test_the_guide_documents_every_name_of_the_amp_kit() -> None:
    from grader.amp import kit

    reference = section("10. Reference: `grader.author`")
    missing = [name for name in kit.__all__ if f"`amp.{name}" not in reference]
    assert not missing, f"document amp.{missing} in the grader.author reference"


def test_the_guide_documents_every_scenario_setting() -> None:
    from grader.amp_scenario import settings

    text = section("6. AMP exercises")
    documented = table_names(text.split("### The settings", 1)[1].split("###", 1)[0])
    assert documented == list(settings()), "the settings table must list the [amp] settings in their order"


def test_the_guide_documents_every_amp_check_and_its_needs() -> None:
    from grader.amp.checks import all_checks
    from grader.amp.registry import NEEDS

    text = section("6. AMP exercises").split("### The checks", 1)[1].split("###", 1)[0]
    assert set(table_names(text)) == set(all_checks()), "every registered AMP check has a row"
    for slug, check in all_checks().items():
        row = next(line for line in text.splitlines() if line.startswith(f"| `{slug}` |"))
        needs = row.split("|")[2]
        # "any" exactly when the check needs nothing; else each need is named in the row
        assert (needs.strip() == "any") == (not check.needs), row
        assert set(check.needs) <= set(NEEDS)


def amp_example_files() -> dict[str, str]:
    return {name: body for name, body in AMP_BLOCK.findall(GUIDE.read_text(encoding="utf-8"))}


def copy_amp_example(root: Path) -> Path:
    files = amp_example_files()
    folder = root / re.search(r'^id = "(.+)"$', files["exercise.toml"], re.MULTILINE).group(1)
    for name, body in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(body, encoding="utf-8")
    return folder


def test_the_guide_has_a_complete_amp_example(tmp_path: Path) -> None:
    files = amp_example_files()
    assert {"exercise.toml", "prompt.md", "prompt.ja.md", "starter.py", "solution.py", "hints.md"} <= set(files)
    exercise = load_exercise(copy_amp_example(tmp_path))
    assert exercise.config.amp is not None
    assert (exercise.config.amp.precision, exercise.config.amp.has_scaler, exercise.config.amp.clip) == (
        "bf16", False, "norm")


@pytest.mark.slow
def test_the_amp_example_validates(tmp_path: Path) -> None:
    exercise = load_exercise(copy_amp_example(tmp_path))
    report = check_exercise(exercise, sandbox="local", with_mutants=True)
    assert report.ok, report.problems
    starter = grade_code(exercise, exercise.starter, sandbox="local")
    assert starter["score"] == 0 and starter["status"] == "fail"
    assert next(t for t in starter["tests"] if t["check"] == "clip-before-step")["status"] == "fail"
