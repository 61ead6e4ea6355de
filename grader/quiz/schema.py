"""Typed schema of a quiz folder's quiz.toml: questions, choices, the key and the explanations."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from grader.schema import Localized

SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]{0,62}$"
QuestionKind = Literal["single", "multiple", "numeric"]


class Choice(BaseModel):
    """One option of a single- or multiple-choice question."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=SLUG_PATTERN)
    text: Localized


class Question(BaseModel):
    """A question with its key; the key and explanation never leave the server unasked."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=SLUG_PATTERN, description="stable slug, used as the check id")
    kind: QuestionKind
    text: Localized
    choices: list[Choice] = Field(default_factory=list)
    # single: one choice id; multiple: the list of every right choice id; numeric: a number.
    answer: str | list[str] | float
    tolerance: float = Field(default=0.0, ge=0, description="numeric only: accepted |error|")
    points: int = Field(default=1, ge=1, le=10)
    explanation: Localized
    # numeric only: Python (torch and math imported) whose last expression is the answer;
    # `grader validate` runs it and reports a key that disagrees (grader.quiz.keys).
    compute: str | None = Field(default=None, min_length=1)

    @field_validator("answer", mode="before")
    @classmethod
    def _no_booleans(cls, value: object) -> object:
        # TOML's true/false would otherwise be read as the numbers 1.0 and 0.0.
        if isinstance(value, bool):
            raise ValueError("must be a choice id, a list of ids or a number, not true/false")
        return value

    @model_validator(mode="after")
    def _key_fits_kind(self) -> Question:
        if self.kind == "numeric":
            self._check_numeric()
        else:
            self._check_choices()
        return self

    def _check_numeric(self) -> None:
        if self.choices:
            raise ValueError("a numeric question has no choices")
        if isinstance(self.answer, (str, list)):
            raise ValueError("'answer' of a numeric question must be a number")
        if not math.isfinite(self.answer):
            raise ValueError("'answer' of a numeric question must be finite")

    def _check_choices(self) -> None:
        if self.compute is not None:
            raise ValueError("'compute' applies to numeric questions only")
        ids = [choice.id for choice in self.choices]
        if len(ids) < 2:
            raise ValueError(f"a {self.kind} question needs at least two choices")
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate choice ids: {', '.join(duplicates)}")
        if self.tolerance:
            raise ValueError("'tolerance' applies to numeric questions only")
        if self.kind == "single":
            if not isinstance(self.answer, str):
                raise ValueError("'answer' of a single question must be one choice id (a string)")
            keys = [self.answer]
        else:
            if not isinstance(self.answer, list) or not self.answer:
                raise ValueError("'answer' of a multiple question must be a non-empty list of ids")
            if len(set(self.answer)) != len(self.answer):
                raise ValueError("'answer' lists a choice id twice")
            keys = self.answer
        unknown = [key for key in keys if key not in ids]
        if unknown:
            raise ValueError(
                f"'answer' names choice ids that do not exist: {', '.join(unknown)} "
                f"(choices are {', '.join(ids)})"
            )

    @property
    def key_ids(self) -> frozenset[str]:
        """The right choice ids of a single or multiple question."""
        if isinstance(self.answer, str):
            return frozenset([self.answer])
        if isinstance(self.answer, list):
            return frozenset(self.answer)
        return frozenset()


class QuizConfig(BaseModel):
    """The contents of quiz.toml."""

    model_config = ConfigDict(extra="forbid")
    # Wrong answers to one question before its explanation (which names the right answer) is
    # shown; a right answer shows it at once. A question answered right only after that
    # earns no points, so retrying with the revealed answer cannot raise the score.
    reveal_after: int = Field(default=2, ge=1, le=10)
    questions: list[Question] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_question_ids(self) -> QuizConfig:
        ids = [q.id for q in self.questions]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate question ids: {', '.join(duplicates)}")
        return self

    def question(self, question_id: str) -> Question | None:
        return next((q for q in self.questions if q.id == question_id), None)
