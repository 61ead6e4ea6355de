"""Slot containers retire at staggered limits, so the slots of one process are never all replaced at once."""

from __future__ import annotations

import random

from grader.sandboxes.docker.slot import job_limit, jobs_served_on_average, retirement_share


def test_each_slot_gets_its_own_share_between_three_quarters_and_all_of_a_limit() -> None:
    rng = random.Random(7)
    shares = [retirement_share(rng) for _ in range(200)]
    assert all(0.75 <= share <= 1.0 for share in shares)
    # Two slots started together: their job limits differ most of the time, so they retire apart.
    pairs = [(job_limit(50, retirement_share(rng)), job_limit(50, retirement_share(rng))) for _ in range(200)]
    assert all(38 <= limit <= 50 for pair in pairs for limit in pair)
    assert sum(first != second for first, second in pairs) > 150


def test_a_limit_of_two_jobs_stays_two_and_one_stays_one() -> None:
    """An operator's (or a test's) small limit is kept: 3/4 of 2 rounds back to 2."""
    rng = random.Random(3)
    assert {job_limit(2, retirement_share(rng)) for _ in range(100)} == {2}
    assert {job_limit(1, retirement_share(rng)) for _ in range(100)} == {1}


def test_the_benches_average_is_the_mean_of_the_drawn_limits() -> None:
    """The cost benches amortise a slot's start over this many jobs: it must match what slots draw."""
    rng = random.Random(11)
    drawn = [job_limit(200, retirement_share(rng)) for _ in range(4000)]
    assert abs(sum(drawn) / len(drawn) - jobs_served_on_average(200)) < 1.5
