"""Deprecated: the old two-line-per-check AMP helpers, kept so tests written before grader.author still load.

New tests use `from grader.author import amp` (one line per check; docs/exercises.md). Remove
this module once no exercise imports it (`grep -r exercise_kit exercises`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.amp import registry
from grader.amp.kit import fixtures as amp_fixtures
from grader.testing import check

__all__ = ["amp_check", "amp_fixtures"]


def amp_check(slug: str, **extra: Any) -> Callable[[Any], Any]:
    """@check with the slug's registered title and hint."""
    known = registry.get(slug)
    return check(slug, title=known.title, hint=known.hint, **extra)
