"""The exercise catalog: grader.loader's ExerciseSet, reloaded when a folder changes."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from grader.api import CONFIG_FILE, Exercise, ExerciseSet, load_exercises

log = logging.getLogger(__name__)


class ExerciseCatalog:
    """Loads exercises once and again only when an exercise.toml appears, goes or changes."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self._lock = threading.Lock()
        self._signature: tuple[tuple[str, int], ...] | None = None
        self._set = ExerciseSet()

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
            return self._set

    def get(self, exercise_id: str) -> Exercise | None:
        return self.exercises().exercises.get(exercise_id)

    def for_lesson(self, lesson: int) -> list[Exercise]:
        return self.exercises().for_lesson(lesson)
