"""The course's languages, and an exercise folder's texts in each: present, and Japanese by the rules.

The course declares its languages by its lessons: `lessons/<lesson>/<lang>.md` beside the
`exercises/` folder; a language is the course's when every lesson has it. A folder checked on
its own (no lessons beside it) is held to English and Japanese, the platform's languages.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from grader.japanese_text import COURSE_FILE, GLOSSARY, HouseStyleError, house_style, text_problems
from grader.ladder import LADDER_FILE
from grader.loader import Exercise

DEFAULT_LANGUAGES = ("en", "ja")
_LANG = re.compile(r"^[a-z]{2}(?:-[A-Za-z]{2,4})?$")


def course_languages(exercise_folder: Path) -> tuple[str, ...]:
    """The languages of the course this folder belongs to, English first."""
    lessons = Path(exercise_folder).resolve().parent.parent / "lessons"
    per_lesson = [{p.stem for p in lesson.glob("*.md") if _LANG.match(p.stem)}
                  for lesson in sorted(lessons.iterdir()) if lesson.is_dir()] if lessons.is_dir() else []
    per_lesson = [found for found in per_lesson if found]
    if not per_lesson:
        return DEFAULT_LANGUAGES
    common = set.intersection(*per_lesson)
    return tuple(sorted(common, key=lambda lang: (lang != "en", lang))) or DEFAULT_LANGUAGES


def _has_text(path: Path) -> bool:
    return path.is_file() and bool(path.read_text(encoding="utf-8").strip())


def missing_translations(exercise: Exercise, languages: tuple[str, ...]) -> list[str]:
    """A problem for each text a course language lacks: without it, that learner silently reads English."""
    problems = []
    title = exercise.config.title.model_dump()
    for lang in (lang for lang in languages if lang != "en"):
        if not str(title.get(lang) or "").strip():
            problems.append(f"exercise.toml: the title has no '{lang}' text ([title] {lang} = \"...\")")
        for stem in ("prompt", "hints"):
            if _has_text(exercise.path / f"{stem}.md") and not _has_text(exercise.path / f"{stem}.{lang}.md"):
                problems.append(f"{stem}.{lang}.md is missing or empty: '{lang}' learners would read "
                                f"{stem}.md in English")
    return problems


def _toml_ja_texts(data: object, where: str) -> list[tuple[str, str]]:
    if isinstance(data, dict):
        found = []
        for key, value in data.items():
            if key == "ja" and isinstance(value, str):
                found.append((f"{where}.ja" if where else "ja", value))
            else:
                found += _toml_ja_texts(value, f"{where}.{key}" if where else key)
        return found
    if isinstance(data, list):
        return [item for i, value in enumerate(data) for item in _toml_ja_texts(value, f"{where}[{i}]")]
    return []


def japanese_problems(exercise: Exercise, glossary_file: Path = GLOSSARY) -> list[str]:
    """The glossary and punctuation rules (grader.japanese_text) over the folder's Japanese prose:
    prompt and hints, the hint ladder, the title and a quiz's texts. The tests' strings are not read:
    they quote code without backticks, which the punctuation rules would take for prose."""
    folder = exercise.path
    problems = []
    for name in ("prompt.ja.md", "hints.ja.md"):
        if (folder / name).is_file():
            problems += text_problems(name, (folder / name).read_text(encoding="utf-8"), markdown=True,
                                      glossary_file=glossary_file)
    for name in ("exercise.toml", "quiz.toml", LADDER_FILE):
        if (folder / name).is_file():
            data = tomllib.loads((folder / name).read_text(encoding="utf-8"))
            for where, text in _toml_ja_texts(data, ""):
                # one line each: the problem names the field, its line 1 is the field's text
                problems += [p.replace(f"{name} {where}:1:", f"{name} {where}:")
                             for p in text_problems(f"{name} {where}", text, markdown=True,
                                                    glossary_file=glossary_file)]
    return problems


def language_problems(exercise: Exercise) -> list[str]:
    """Everything validate reports as wrong about a folder's languages: a missing translation,
    and the Japanese house style where the course declares it (style_warnings otherwise)."""
    languages = course_languages(exercise.path)
    problems = missing_translations(exercise, languages)
    if "ja" in languages:
        try:
            declared = house_style(exercise.path)
        except HouseStyleError as exc:
            return [*problems, str(exc)]
        if declared is not None:
            problems += japanese_problems(exercise, declared.glossary)
    return problems


def style_warnings(exercise: Exercise) -> list[str]:
    """The Japanese rules for a folder whose course declares no house style: told, never refused
    (a course's typography is its own choice; the folder stays valid and served)."""
    try:
        if house_style(exercise.path) is not None or "ja" not in course_languages(exercise.path):
            return []
    except HouseStyleError:
        return []  # language_problems reports it
    return [f"{problem} (this platform's house style; declare it in {COURSE_NOTE} to make it a rule)"
            for problem in japanese_problems(exercise)]


COURSE_NOTE = f"the course's {COURSE_FILE}, [house_style]"
