"""Exercise-folder schema and loader: valid folders load, broken ones name the file and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.loader import ExerciseLoadError, load_exercise, load_exercises

VALID = """
id = "{id}"
lesson = 3
kind = "code"
entry = "train"
[title]
en = "Title"
ja = "題名"
"""


def make_folder(root: Path, name: str, toml: str, files=("prompt.md", "starter.py", "solution.py")) -> Path:
    folder = root / name
    (folder / "tests").mkdir(parents=True)
    (folder / "exercise.toml").write_text(toml, encoding="utf-8")
    for file in files:
        (folder / file).write_text("x = 1\n", encoding="utf-8")
    return folder


def test_valid_folder_loads(tmp_path: Path) -> None:
    folder = make_folder(tmp_path, "good-one", VALID.format(id="good-one"))
    exercise = load_exercise(folder)
    assert exercise.id == "good-one"
    assert exercise.config.limits.time_s == 30  # default
    assert exercise.config.title.get("ja") == "題名"
    assert exercise.starter == "x = 1\n"


@pytest.mark.parametrize(("toml", "field"), [
    (VALID.format(id="bad") .replace("lesson = 3", "lesson = 9"), "lesson"),
    (VALID.format(id="bad").replace('kind = "code"', 'kind = "essay"'), "kind"),
    (VALID.format(id="bad").replace('ja = "題名"', ""), "title.ja"),
    (VALID.format(id="bad") + "\n[limits]\ntime_s = 9999\n", "limits.time_s"),
    ("surprise = 1\n" + VALID.format(id="bad"), "surprise"),
    (VALID.format(id="bad").replace('entry = "train"', 'entry = "not valid"'), "entry"),
])
def test_broken_field_is_named(tmp_path: Path, toml: str, field: str) -> None:
    folder = make_folder(tmp_path, "bad", toml)
    with pytest.raises(ExerciseLoadError) as caught:
        load_exercise(folder)
    assert caught.value.file == "exercise.toml"
    assert f"field '{field}'" in str(caught.value)
    assert "bad/exercise.toml" in str(caught.value)


def test_invalid_toml_and_id_mismatch_and_missing_file(tmp_path: Path) -> None:
    broken = make_folder(tmp_path, "broken", "id = [unclosed")
    with pytest.raises(ExerciseLoadError, match="not valid TOML"):
        load_exercise(broken)
    renamed = make_folder(tmp_path, "renamed", VALID.format(id="other"))
    with pytest.raises(ExerciseLoadError, match="must match the folder name"):
        load_exercise(renamed)
    missing = make_folder(tmp_path, "missing", VALID.format(id="missing"), files=("prompt.md",))
    with pytest.raises(ExerciseLoadError, match="starter.py"):
        load_exercise(missing)


def test_one_broken_folder_does_not_stop_the_others(tmp_path: Path) -> None:
    make_folder(tmp_path, "first", VALID.format(id="first"))
    make_folder(tmp_path, "second", "not toml at all [")
    make_folder(tmp_path, "third", VALID.format(id="third"))
    found = load_exercises(tmp_path)
    assert sorted(found.exercises) == ["first", "third"]
    assert [e.folder.name for e in found.errors] == ["second"]


def test_repository_exercises_all_load(exercises_dir: Path) -> None:
    found = load_exercises(exercises_dir)
    assert not found.errors, [str(e) for e in found.errors]
    assert "amp-train-one-epoch" in found.exercises


def test_lesson_listing_is_ordered(tmp_path: Path) -> None:
    make_folder(tmp_path, "b-ex", "order = 1\n" + VALID.format(id="b-ex"))
    make_folder(tmp_path, "a-ex", "order = 2\n" + VALID.format(id="a-ex"))
    shutil.rmtree(tmp_path / "a-ex" / "tests")
    found = load_exercises(tmp_path)
    assert [e.id for e in found.for_lesson(3)] == ["b-ex"]
    assert found.errors[0].problems == ["required file 'tests' is missing"]


@pytest.mark.parametrize(("japanese", "expected"), [
    (None, "English\n"),           # no translation
    ("", "English\n"),             # an empty file
    ("  \n\n", "English\n"),       # only whitespace
    ("日本語\n", "日本語\n"),        # a translation
])
def test_one_rule_for_localized_prompts_and_hints(tmp_path: Path, japanese: str | None, expected: str) -> None:
    folder = make_folder(tmp_path, "lang-rule", VALID.format(id="lang-rule"))
    for stem in ("prompt", "hints"):
        (folder / f"{stem}.md").write_text("English\n", encoding="utf-8")
        if japanese is not None:
            (folder / f"{stem}.ja.md").write_text(japanese, encoding="utf-8")
    exercise = load_exercise(folder)
    assert exercise.prompt("ja") == exercise.hints("ja") == expected
    assert exercise.prompt("en") == "English\n"
    found = exercise.localized_file("prompt", "ja")
    assert found is not None and found.name == ("prompt.md" if expected == "English\n" else "prompt.ja.md")
    (folder / "hints.md").unlink()
    if expected == "English\n":
        assert exercise.localized_file("hints", "ja") is None and exercise.hints("ja") == ""
