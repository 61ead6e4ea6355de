"""The exercise catalog: grader.loader's ExerciseSet, reloaded when a folder changes, with each
folder's fingerprint and the authoring problems a cheap look at its tests finds."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from grader.api import CONFIG_FILE, Exercise, ExerciseSet, authoring_problems, folder_fingerprint, load_exercises

log = logging.getLogger(__name__)
# How often the files of every folder are looked at again (a stat each); exercise.toml is looked at
# on every call, as before. A changed test or solution is seen within this many seconds.
RECHECK_S = 2.0


class ExerciseCatalog:
    """Loads exercises once and again only when an exercise.toml appears, goes or changes; a folder's
    fingerprint and authoring problems are computed again when any of its files changes."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self._lock = threading.Lock()
        self._signature: tuple[tuple[str, int], ...] | None = None
        self._set = ExerciseSet()
        self._files: dict[str, tuple[tuple[str, int, int], ...]] = {}  # id -> (name, mtime, size) of each file
        self._fingerprints: dict[str, str] = {}
        self._problems: dict[str, list[str]] = {}
        self._files_checked = 0.0

    def _current_signature(self) -> tuple[tuple[str, int], ...]:
        if not self.root.is_dir():
            return ()
        found = []
        for config in self.root.glob(f"*/{CONFIG_FILE}"):
            try:
                found.append((config.parent.name, config.stat().st_mtime_ns))
            except FileNotFoundError:  # removed between glob and stat
                continue
        return tuple(sorted(found))

    def exercises(self) -> ExerciseSet:
        signature = self._current_signature()
        with self._lock:
            if signature != self._signature:
                loaded = load_exercises(self.root) if self.root.is_dir() else ExerciseSet()
                for error in loaded.errors:
                    # An instructor's broken folder is logged and skipped, never fatal.
                    log.warning("exercise folder skipped: %s", error)
                self._set, self._signature = loaded, signature
                self._files_checked = 0.0  # new or changed folders: look at their files now
            return self._set

    def get(self, exercise_id: str) -> Exercise | None:
        return self.exercises().exercises.get(exercise_id)

    def for_lesson(self, lesson: int) -> list[Exercise]:
        return self.exercises().for_lesson(lesson)

    # -- fingerprints and authoring problems ---------------------------------------------------
    def _refresh_files(self) -> None:
        exercises = self.exercises().exercises
        with self._lock:
            if time.monotonic() - self._files_checked < RECHECK_S and set(self._files) == set(exercises):
                return
            for exercise_id, exercise in exercises.items():
                stamp = _file_stamps(exercise.path)
                if self._files.get(exercise_id) != stamp:
                    self._files[exercise_id] = stamp
                    self._fingerprints[exercise_id] = folder_fingerprint(exercise.path)
                    problems = authoring_problems(exercise.path) if exercise.kind.accepts_code else []
                    if problems:
                        log.warning("exercise %s has authoring errors: %s", exercise_id, "; ".join(problems))
                    self._problems[exercise_id] = problems
            for gone in set(self._files) - set(exercises):
                self._files.pop(gone, None)
                self._fingerprints.pop(gone, None)
                self._problems.pop(gone, None)
            self._files_checked = time.monotonic()

    def fingerprint(self, exercise_id: str) -> str | None:
        """The folder's current fingerprint (grader.fingerprint), None for an unknown id."""
        self._refresh_files()
        return self._fingerprints.get(exercise_id)

    def authoring_problems(self, exercise_id: str) -> list[str]:
        """What keeps this folder's tests from being collected, found without running them."""
        self._refresh_files()
        return list(self._problems.get(exercise_id, []))


def _file_stamps(folder: Path) -> tuple[tuple[str, int, int], ...]:
    stamps = []
    for path in sorted(folder.rglob("*")):
        if "__pycache__" in path.parts:
            continue
        try:
            stat = path.stat()
        except FileNotFoundError:
            continue
        stamps.append((path.relative_to(folder).as_posix(), stat.st_mtime_ns, stat.st_size))
    return tuple(stamps)
