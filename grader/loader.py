"""Loads exercise folders; a broken folder becomes a named error and never stops the others."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from grader.kinds import KINDS, Kind
from grader.schema import ExerciseConfig

CONFIG_FILE = "exercise.toml"


class ExerciseLoadError(Exception):
    """An exercise folder that cannot be used, naming the folder, the file and the field."""

    def __init__(self, folder: Path, file: str, problems: list[str]):
        self.folder = folder
        self.file = file
        self.problems = problems
        super().__init__(f"{folder.name}/{file}: " + "; ".join(problems))


@dataclass(frozen=True)
class Exercise:
    """A loaded, validated exercise folder."""

    config: ExerciseConfig
    path: Path

    @property
    def id(self) -> str:
        return self.config.id

    @property
    def kind(self) -> Kind:
        """What this kind of exercise needs and where it is shown (grader.kinds)."""
        return KINDS[self.config.kind]

    def text(self, name: str) -> str:
        """A file of the folder as text, '' when it is absent."""
        file = self.path / name
        return file.read_text(encoding="utf-8") if file.is_file() else ""

    def localized_file(self, stem: str, lang: str) -> Path | None:
        """`<stem>.<lang>.md` when it has text, else `<stem>.md` when present, else None.

        The one rule for prompts and hints (the web pages and the grader alike): a translation
        that is missing, empty or only whitespace falls back to the English file.
        """
        if lang != "en":
            localized = self.path / f"{stem}.{lang}.md"
            if localized.is_file() and localized.read_text(encoding="utf-8").strip():
                return localized
        english = self.path / f"{stem}.md"
        return english if english.is_file() else None

    def _localized_text(self, stem: str, lang: str) -> str:
        path = self.localized_file(stem, lang)
        return path.read_text(encoding="utf-8") if path else ""

    def prompt(self, lang: str = "en") -> str:
        return self._localized_text("prompt", lang)

    def hints(self, lang: str = "en") -> str:
        return self._localized_text("hints", lang)

    @property
    def starter(self) -> str:
        return self.text("starter.py")

    def starter_for(self, lang: str) -> str:
        """The starter in the learner's language: starter.<lang>.py (the same code with translated
        comments and docstrings, checked by `grader validate`) where the folder has one."""
        localized = self.path / f"starter.{lang}.py"
        if lang != "en" and localized.is_file():
            return localized.read_text(encoding="utf-8")
        return self.starter

    @property
    def solution_path(self) -> Path:
        return self.path / "solution.py"

    @property
    def tests_dir(self) -> Path:
        return self.path / "tests"


@dataclass
class ExerciseSet:
    """Every exercise that loaded, and an error for every folder that did not."""

    exercises: dict[str, Exercise] = field(default_factory=dict)
    errors: list[ExerciseLoadError] = field(default_factory=list)

    def for_lesson(self, lesson: int) -> list[Exercise]:
        found = [e for e in self.exercises.values() if e.config.lesson == lesson]
        return sorted(found, key=lambda e: (e.config.order, e.id))


def _describe(error: ValidationError) -> list[str]:
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "(top level)"
        problems.append(f"field '{where}': {item['msg']}")
    return problems


def load_exercise(folder: Path) -> Exercise:
    """Load and validate one folder, or raise ExerciseLoadError."""
    folder = Path(folder)
    config_file = folder / CONFIG_FILE
    if not config_file.is_file():
        raise ExerciseLoadError(folder, CONFIG_FILE, ["file is missing"])
    try:
        raw = tomllib.loads(config_file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ExerciseLoadError(folder, CONFIG_FILE, [f"not valid TOML: {exc}"]) from exc
    try:
        config = ExerciseConfig.model_validate(raw)
    except ValidationError as exc:
        raise ExerciseLoadError(folder, CONFIG_FILE, _describe(exc)) from exc
    if config.id != folder.name:
        raise ExerciseLoadError(
            folder, CONFIG_FILE, [f"field 'id': '{config.id}' must match the folder name"]
        )
    required = ["prompt.md", *KINDS[config.kind].required_files]
    missing = [name for name in required if not (folder / name).exists()]
    if missing:
        raise ExerciseLoadError(folder, missing[0], [f"required file '{m}' is missing" for m in missing])
    return Exercise(config=config, path=folder.resolve())


def load_exercises(root: Path) -> ExerciseSet:
    """Load every folder under root that holds an exercise.toml (or looks meant to)."""
    found = ExerciseSet()
    for folder in sorted(p for p in Path(root).iterdir() if p.is_dir()):
        if folder.name.startswith((".", "_")):
            continue
        try:
            exercise = load_exercise(folder)
        except ExerciseLoadError as exc:
            found.errors.append(exc)
            continue
        found.exercises[exercise.id] = exercise
    return found
