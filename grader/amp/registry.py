"""The one place an AMP check is registered: @register(slug, title=..., hint=...) on its function."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.amp.findings import Context, Finding

Text = dict[str, str]
CheckFunction = Callable[["Context"], "Finding"]


@dataclass(frozen=True)
class AmpCheck:
    """A registered check: what the learner reads first (title, hint) and the function that judges."""

    slug: str
    title: Text
    hint: Text
    function: CheckFunction
    advises: bool = False  # may add advice while it runs (the review runs it even if no test asks)


CHECKS: dict[str, AmpCheck] = {}


def register(slug: str, *, title: Text, hint: Text, advises: bool = False) -> Callable[[CheckFunction], CheckFunction]:
    """Register `function` as the AMP check `slug`; a second registration of a slug is a bug."""

    def add(function: CheckFunction) -> CheckFunction:
        if slug in CHECKS:
            raise ValueError(f"AMP check '{slug}' is registered twice")
        for name, text in (("title", title), ("hint", hint)):
            if set(text) != {"en", "ja"} or not all(text.values()):
                raise ValueError(f"AMP check '{slug}': {name} needs both 'en' and 'ja'")
        CHECKS[slug] = AmpCheck(slug, title, hint, function, advises)
        return function

    return add


def get(slug: str) -> AmpCheck:
    """The check registered as `slug`, with the known slugs in the error when there is none."""
    _load()
    if slug not in CHECKS:
        raise KeyError(f"no AMP check '{slug}' (known: {', '.join(sorted(CHECKS))})")
    return CHECKS[slug]


def all_checks() -> dict[str, AmpCheck]:
    _load()
    return CHECKS


def _load() -> None:
    # The check modules register on import; importing them here keeps callers from needing to.
    from grader.amp import checks_clip, checks_loop, checks_mode, checks_scaler, checks_scope  # noqa: F401
