"""The per-kind table and the lesson count drive the schema and the loader (stated once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.kinds import KINDS, LESSONS
from grader.loader import ExerciseLoadError, load_exercise
from grader.validate import VALIDATORS

TOML = 'id = "{id}"\nlesson = {lesson}\nkind = "{kind}"\n[title]\nen = "T"\nja = "T"\n'


def _folder(tmp_path: Path, kind: str, lesson: int = 1) -> Path:
    folder = tmp_path / f"x-{kind}"
    folder.mkdir()
    (folder / "exercise.toml").write_text(TOML.format(id=folder.name, lesson=lesson, kind=kind))
    (folder / "prompt.md").write_text("# T\n")
    return folder


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_needs_its_files(tmp_path: Path, kind: str) -> None:
    folder = _folder(tmp_path, kind)
    with pytest.raises(ExerciseLoadError) as missing:
        load_exercise(folder)
    assert KINDS[kind].required_files[0] in str(missing.value)
    for name in KINDS[kind].required_files:
        (folder / name).mkdir() if name == "tests" else (folder / name).write_text("")
    assert load_exercise(folder).kind is KINDS[kind]


def test_lessons_and_kinds_bound_the_schema(tmp_path: Path) -> None:
    with pytest.raises(ExerciseLoadError, match="lesson"):
        load_exercise(_folder(tmp_path, "code", lesson=LESSONS + 1))
    with pytest.raises(ExerciseLoadError, match="'code', 'quiz'"):
        load_exercise(_folder(tmp_path, "essay"))


def test_every_kind_has_a_validator() -> None:
    assert set(VALIDATORS) == set(KINDS)
