"""The benches' one percentile helper: statistics.quantiles, interpolated within the measured range."""

from __future__ import annotations

import math

import pytest

from bench.stats import percentile


def test_percentiles_interpolate_between_timings() -> None:
    timings = [float(n) for n in range(10, 0, -1)]  # unordered on purpose
    assert percentile(timings, 0.5) == pytest.approx(5.5)
    assert percentile(timings, 0.9) == pytest.approx(9.1)
    assert percentile(timings, 0.95) == pytest.approx(9.55)
    assert 1.0 <= percentile(timings, 0.01) and percentile(timings, 0.99) <= 10.0


def test_few_or_no_timings() -> None:
    assert percentile([2.5], 0.9) == 2.5
    assert math.isnan(percentile([], 0.9))
    with pytest.raises(ValueError, match="between 1 and 99"):
        percentile([1.0, 2.0], 1.0)
