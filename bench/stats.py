"""Percentiles of a bench's timings, one way for every script: statistics.quantiles, interpolated."""

from __future__ import annotations

import statistics


def percentile(values: list[float], q: float) -> float:
    """The q-th quantile (0 < q < 1, in whole percents: 0.9 is p90) of values; NaN when there are none.

    "inclusive": interpolates between the measured values, so p90 of ten timings never leaves their range.
    """
    if not values:
        return float("nan")
    if len(values) == 1:
        return float(values[0])
    percent = round(q * 100)
    if not 1 <= percent <= 99:
        raise ValueError(f"a percentile between 1 and 99, not {q}")
    return statistics.quantiles(values, n=100, method="inclusive")[percent - 1]
