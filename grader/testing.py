"""The @check decorator and Feedback, the failure a learner reads (re-exported by grader.author)."""

from __future__ import annotations

import sys
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


class NotChecked(Exception):
    """Raised by a check whose subject never happened: recorded as skipped (no points), never passed."""

    def __init__(self, message: Text):
        super().__init__(localize(message, "en"))
        self.message = message


class CannotVerifyHere(NotChecked):
    """Raised by a check this grader cannot verify (a CUDA-only behaviour on a CPU grader).

    Recorded as skipped and `unverifiable`: it earns nothing and puts nothing at stake, so it
    counts neither way; the message says so plainly. Never a pass: a wrong answer earns nothing.
    """


class AuthoringError(Exception):
    """A mistake in the exercise folder (not the learner's): named with its file and line, shown as an error.

    Raised by the grader's own kits (grader.amp.kit: a check that does not apply to the declared
    scenario, a reference solution that fails its own checks); the harness reports it as
    "The exercise's tests are broken: ...", and `grader validate` fails on it.
    """


@dataclass(frozen=True)
class CheckInfo:
    """What the results document says about a check besides its outcome.

    given=True marks what the untouched starter already does right: while it holds it earns
    nothing (credit is for the learner's work), and when the learner breaks it its points are
    at stake and lost, so a failing submission never scores 100 % (docs/exercises.md, "Scores").
    """

    slug: str
    title: Text
    hint: Text | None = None
    depends: Sequence[str] = field(default_factory=tuple)
    points: float = 1
    given: bool = False


def check(slug: str, *, title: Text | None = None, hint: Text | None = None,
          depends: Sequence[str] = (), points: float = 1, given: bool = False) -> Callable[[F], F]:
    """Mark a test as a learner-facing check; its title defaults to the docstring's first line.

    Every check carries points; `given=True` says the starter already passes it (see CheckInfo).
    """
    if isinstance(depends, str):  # depends="runs" would silently mean depends=["r", "u", ...]
        raise TypeError(f"check '{slug}': depends must be a list of slugs, not a string")
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not 0 < points <= 100:
        # points=0 once hid failing checks from the score; a check the starter passes is given=True.
        raise TypeError(f"check '{slug}': points must be a number above 0 (at most 100), not {points!r}; "
                        "declare a check the starter already passes with given=True")

    def mark(function: F) -> F:
        doc = (function.__doc__ or "").strip().splitlines()
        function._grader_check = CheckInfo(  # type: ignore[attr-defined]
            slug=slug, title=title or (doc[0] if doc else slug), hint=hint,
            depends=tuple(depends), points=points, given=given,
        )
        return function

    return mark


def check_info(function: Any) -> CheckInfo | None:
    return getattr(function, "_grader_check", None)


def made_here(function: F, name: str, depth: int = 2) -> F:
    """Give a generated test the caller's file, line and name, so pytest orders and names it
    where the author wrote the one line that made it (not where the factory lives)."""
    frame = sys._getframe(depth)
    function.__code__ = function.__code__.replace(co_filename=frame.f_code.co_filename,
                                                  co_firstlineno=frame.f_lineno, co_name=name)
    function.__name__ = function.__qualname__ = name
    function.__module__ = frame.f_globals.get("__name__", function.__module__)
    return function
