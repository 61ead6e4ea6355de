"""Typed schema of an exercise folder's exercise.toml (validated on load)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from grader.amp_scenario import Scenario
from grader.kinds import KINDS, LESSONS

# Platform-wide caps: an exercise may ask for less, never for more.
MAX_TIME_S = 120
MAX_MEMORY_MB = 4096
ID_PATTERN = r"^[a-z0-9][a-z0-9-]{1,62}$"


class Localized(BaseModel):
    """A learner-facing string in English and Japanese."""

    model_config = ConfigDict(extra="forbid")
    en: str = Field(min_length=1)
    ja: str = Field(min_length=1)

    def get(self, lang: str) -> str:
        return self.ja if lang == "ja" else self.en


class Limits(BaseModel):
    """Resource limits for one grading job of this exercise."""

    model_config = ConfigDict(extra="forbid")
    time_s: float = Field(default=30, gt=0, le=MAX_TIME_S, description="wall-clock seconds")
    memory_mb: int = Field(default=2048, ge=256, le=MAX_MEMORY_MB)
    processes: int = Field(default=256, ge=16, le=1024, description="threads count too")
    output_kb: int = Field(default=64, ge=1, le=1024, description="learner stdout+stderr kept")


class EquivalentMutant(BaseModel):
    """A mutant of the solution that validate does not grade: a correct solution too, or (cuda_only)
    a change in code that only a CUDA grader runs, which a CPU grader cannot verify."""

    model_config = ConfigDict(extra="forbid")
    line: int = Field(ge=1, description="the solution's line, as `grader validate` names it")
    change: str = Field(min_length=1, description="the change, exactly as `grader validate` names it")
    why: str = Field(min_length=10, description="why this is still right, for the next author")
    cuda_only: bool = Field(default=False, description=(
        "not right, but only visible on a GPU: its check says 'cannot be verified here' on a CPU "
        "grader; scripts/gpu-check.sh grades these mutants on CUDA, where each must fail"))


class ExerciseConfig(BaseModel):
    """The contents of exercise.toml."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=ID_PATTERN)
    title: Localized
    lesson: int = Field(ge=1, le=LESSONS)
    order: int = Field(default=1, ge=1, description="position within the lesson")
    kind: str = Field(description="a key of grader.kinds.KINDS")
    points: int = Field(default=1, ge=1, le=100)
    gpu: Literal["no", "optional", "required"] = "no"
    limits: Limits = Field(default_factory=Limits)
    entry: str | None = Field(
        default=None, description="for code exercises: the function the learner completes"
    )
    sample_call: str | None = Field(
        default=None, max_length=600,
        description="code a learner can add to try the entry with Run (shown when Run prints nothing)")
    equivalent_mutants: list[EquivalentMutant] = Field(
        default_factory=list, max_length=20,
        description="mutants of the solution that are correct too ([[equivalent_mutants]] tables)")
    amp: Scenario | None = Field(
        default=None, description="an AMP exercise's scenario ([amp] table, docs/exercises.md section 6)")

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, value: str) -> str:
        if value not in KINDS:
            raise ValueError(f"must be one of {', '.join(repr(k) for k in KINDS)}")
        return value

    @field_validator("sample_call")
    @classmethod
    def _sample_call_is_python(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip("\n")
        if not value.strip() or value.count("\n") >= 12:
            raise ValueError("must be 1 to 12 lines of Python")
        try:
            compile(value, "sample_call", "exec", dont_inherit=True)
        except SyntaxError as exc:
            raise ValueError(f"is not valid Python: {exc.msg} (line {exc.lineno})") from None
        return value

    @field_validator("entry")
    @classmethod
    def _entry_is_identifier(cls, value: str | None) -> str | None:
        if value is not None and not value.isidentifier():
            raise ValueError("must be a Python identifier")
        return value
