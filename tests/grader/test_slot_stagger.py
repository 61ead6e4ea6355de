"""Slot containers retire at staggered limits, so the slots of one process are never all replaced at once."""

from __future__ import annotations

import random

from grader.sandboxes.docker.slot import staggered


def test_each_slot_gets_its_own_share_between_three_quarters_and_all_of_a_limit() -> None:
    rng = random.Random(7)
    shares = [staggered(50, rng) for _ in range(200)]
    assert all(37.5 <= share <= 50 for share in shares)
    # Two slots started together: their job limits differ most of the time, so they retire apart.
    pairs = [(round(staggered(50, rng)), round(staggered(50, rng))) for _ in range(200)]
    assert sum(first != second for first, second in pairs) > 150


def test_a_limit_of_two_jobs_stays_two() -> None:
    """An operator's (or a test's) small limit is kept: 3/4 of 2 rounds back to 2."""
    rng = random.Random(3)
    assert {max(1, round(staggered(2, rng))) for _ in range(100)} == {2}
