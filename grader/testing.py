"""What exercise tests import: the @check decorator and Feedback, the failure a learner reads."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

Text = str | dict[str, str]
F = TypeVar("F", bound=Callable[..., Any])


def localize(text: Text | None, lang: str) -> str:
    """Pick the learner's language from a {"en":..., "ja":...} text, falling back to English."""
    if text is None:
        return ""
    if isinstance(text, str):
        return text
    return text.get(lang) or text.get("en") or next(iter(text.values()), "")


class Feedback(AssertionError):
    """A failed check, in words meant for the learner: the mistake, the line, a hint."""

    def __init__(self, message: Text, *, line: int | None = None, hint: Text | None = None):
        super().__init__(localize(message, "en"))
        self.message = message
        self.line = line
        self.hint = hint


@dataclass(frozen=True)
class CheckInfo:
    """What the results document says about a check besides its outcome."""

    slug: str
    title: Text
    hint: Text | None = None
    depends: Sequence[str] = field(default_factory=tuple)
    points: float = 1


def check(slug: str, *, title: Text | None = None, hint: Text | None = None,
          depends: Sequence[str] = (), points: float = 1) -> Callable[[F], F]:
    """Mark a test as a learner-facing check; its title defaults to the docstring's first line."""

    def mark(function: F) -> F:
        doc = (function.__doc__ or "").strip().splitlines()
        function._grader_check = CheckInfo(  # type: ignore[attr-defined]
            slug=slug, title=title or (doc[0] if doc else slug), hint=hint,
            depends=tuple(depends), points=points,
        )
        return function

    return mark


def check_info(function: Any) -> CheckInfo | None:
    return getattr(function, "_grader_check", None)
