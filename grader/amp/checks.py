"""Every AMP check, registered: importing this module imports each check module (they register on import)."""

from __future__ import annotations

from grader.amp import (  # noqa: F401
    checks_clip,
    checks_loop,
    checks_loss,
    checks_mode,
    checks_precision,
    checks_returned,
    checks_scaler,
    checks_scope,
    checks_window,
)
from grader.amp.registry import CHECKS, AmpCheck


def get(slug: str) -> AmpCheck:
    """The check registered as `slug`, with the known slugs in the error when there is none."""
    if slug not in CHECKS:
        raise KeyError(f"no AMP check '{slug}' (known: {', '.join(sorted(CHECKS))})")
    return CHECKS[slug]


def all_checks() -> dict[str, AmpCheck]:
    return CHECKS
