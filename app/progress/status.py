"""A learner's standing per exercise (solved / attempted / not started) and per lesson."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from app.progress.records import Attempt
from grader.api import Exercise

SOLVED, ATTEMPTED, NOT_STARTED = "solved", "attempted", "not_started"


@dataclass
class ExerciseProgress:
    """How far one learner got with one exercise or quiz."""

    exercise_id: str
    attempts: int = 0
    solved: bool = False
    best_score: float | None = None
    first_pass_at: datetime | None = None
    attempts_to_pass: int | None = None  # the number of the first passing attempt
    last_at: datetime | None = None

    @property
    def state(self) -> str:
        if self.solved:
            return SOLVED
        return ATTEMPTED if self.attempts else NOT_STARTED

    def add(self, attempt: Attempt) -> None:
        self.attempts += 1
        self.last_at = attempt.created_at
        if attempt.score is not None:
            self.best_score = max(self.best_score or 0.0, attempt.score)
        if attempt.passed and not self.solved:
            self.solved, self.first_pass_at = True, attempt.created_at
            self.attempts_to_pass = self.attempts


@dataclass
class LessonProgress:
    number: int
    exercises: list[tuple[Exercise, ExerciseProgress]] = field(default_factory=list)

    @property
    def solved(self) -> int:
        return sum(1 for _e, p in self.exercises if p.solved)


def by_learner(records: Iterable[Attempt]) -> dict[str, dict[str, ExerciseProgress]]:
    """learner -> exercise id -> progress, from records in time order."""
    table: dict[str, dict[str, ExerciseProgress]] = defaultdict(dict)
    for record in records:
        mine = table[record.learner]
        mine.setdefault(record.exercise_id, ExerciseProgress(record.exercise_id)).add(record)
    return table


def by_lesson(exercises: Iterable[Exercise], progress: dict[str, ExerciseProgress]
              ) -> list[LessonProgress]:
    """The course's exercises grouped by lesson, each with this learner's progress."""
    lessons: dict[int, LessonProgress] = {}
    for exercise in sorted(exercises, key=lambda e: (e.config.lesson, e.config.order, e.id)):
        lesson = lessons.setdefault(exercise.config.lesson, LessonProgress(exercise.config.lesson))
        lesson.exercises.append(
            (exercise, progress.get(exercise.id) or ExerciseProgress(exercise.id)))
    return [lessons[number] for number in sorted(lessons)]
