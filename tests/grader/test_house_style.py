"""House style is declared, not imposed: the Japanese rules fail a folder only in a course that declares them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from grader.japanese_text import GLOSSARY, house_style
from grader.loader import load_exercise
from grader.validate import check_exercise, validate_all

REPO = Path(__file__).resolve().parents[2]
EXERCISES = REPO / "exercises"
NEW_TITLE = "クイズ: 形状、ブロードキャスト、縮約"  # a half-width colon, as a new instructor wrote it
COLON = "exercise.toml title.ja: half-width colon next to Japanese: use ："


def new_instructors_quiz(course: Path) -> Path:
    """A quiz folder of a new instructor's course (no course.toml), its Japanese title theirs."""
    folder = course / "exercises" / "quiz-shapes"
    shutil.copytree(EXERCISES / "quiz-tensors", folder)
    toml = folder / "exercise.toml"
    text = toml.read_text(encoding="utf-8").replace('id = "quiz-tensors"', 'id = "quiz-shapes"')
    start = text.index("\nja = ", text.index("[title]"))
    end = text.index("\n", start + 1)
    toml.write_text(text[:start] + f'\nja = "{NEW_TITLE}"' + text[end:], encoding="utf-8")
    return folder


def test_a_new_instructors_half_width_colon_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    folder = new_instructors_quiz(tmp_path / "course")
    [report] = list(validate_all(folder))
    assert report.ok and report.problems == [], report.problems
    assert any(warning.startswith(COLON) and "course.toml" in warning for warning in report.warnings), report.warnings
    # The command says ok, shows the warning, and exits 0.
    done = subprocess.run([sys.executable, "-m", "grader", "validate", str(folder)], capture_output=True,
                          text=True, check=False, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok   quiz-shapes" in done.stdout and f"warning: {COLON}" in done.stdout


def test_a_course_that_declares_the_house_style_is_held_to_it(tmp_path: Path) -> None:
    course = tmp_path / "course"
    folder = new_instructors_quiz(course)
    (course / "style").mkdir()
    shutil.copy(GLOSSARY, course / "style" / "words.md")
    (course / "course.toml").write_text('[house_style]\nglossary = "style/words.md"\n', encoding="utf-8")
    assert house_style(folder).glossary == course / "style" / "words.md"
    [report] = list(validate_all(folder))
    assert not report.ok and COLON in report.problems and report.warnings == []
    assert not report.broken  # typography never keeps a folder from learners (only authoring errors do)
    # The course's own glossary, not the platform's, decides the words.
    prompt = folder / "prompt.ja.md"
    prompt.write_text("# クイズ\n\nデータの各サンプルを見ます。\n", encoding="utf-8")
    assert any("'サンプル' is not the course's word: use '例' (words.md)" in p
               for p in check_exercise(load_exercise(folder)).problems)
    words = course / "style" / "words.md"
    words.write_text(words.read_text(encoding="utf-8").replace("| 例 | サンプル |", "| 例 | |"), encoding="utf-8")
    assert not any("サンプル" in p for p in check_exercise(load_exercise(folder)).problems)


def test_a_declaration_that_names_no_glossary_is_reported(tmp_path: Path) -> None:
    course = tmp_path / "course"
    folder = new_instructors_quiz(course)
    (course / "course.toml").write_text('[house_style]\nglossary = "docs/missing.md"\n', encoding="utf-8")
    [report] = list(validate_all(folder))
    assert not report.ok
    assert any(p.startswith("course.toml: [house_style] glossary must name") for p in report.problems), report.problems


def test_this_course_declares_its_house_style() -> None:
    declared = house_style(EXERCISES / "quiz-tensors")
    # GLOSSARY, the package's copy, links to the file the course declares
    assert declared is not None and declared.glossary.resolve() == GLOSSARY.resolve()
    # ... so in this repository the rules are errors (tests/grader/test_validate_rules.py).
    folder = EXERCISES / "quiz-tensors"
    assert check_exercise(load_exercise(folder)).warnings == []
