"""Chart inputs at the extremes, shared by the server's and the browser's renderer tests."""

from __future__ import annotations

NEAR = 1.0000000000000002  # the next float after 1.0


def fig(points, x_scale="linear", y_scale="linear", marks=(), spread=None):
    series = {"name": "s", "points": [list(p) for p in points]}
    if spread is not None:
        series["spread"] = [list(w) for w in spread]
    return {"id": "extreme", "title": "t", "x_scale": x_scale, "y_scale": y_scale,
            "series": [series], "marks": [{"x": x, "label": "m"} for x in marks]}


TIMES = [[64, 7.4], [128, 30.1]]  # a step-time chart's medians, in ms


# Shapes that raised (OverflowError) or looped before; every one must draw or be skipped.
EXTREMES = {
    "measured 1.5e305 s": fig([[64, 1.5e308], [128, 7.4]], "log", "log"),
    "1e308 linear": fig([[1, 1e308], [2, -1e308]]),
    "1e308 equal": fig([[1e308, 1e308], [1e308, 1e308]]),
    "1e-308": fig([[1, 1e-308], [2, 2e-308]]),
    "1e-308 log": fig([[1e-308, 1e-308], [1, 1]], "log", "log"),
    "negative zero": fig([[-0.0, -0.0], [0.0, -0.0]]),
    "equal values": fig([[3, 2.5], [3, 2.5]]),
    "speed-ups 1.0 vs next float": fig([[64, 1.0], [128, NEAR]]),
    "nearly equal large": fig([[1, 1e20], [2, 1e20 * NEAR]]),
    "nearly equal log": fig([[1, 1.0], [2, NEAR]], "log", "log"),
    "tiny span near zero": fig([[0, 0.0], [1, 5e-324]]),
    "marks far outside": fig([[1, 1], [2, 2]], marks=(1e29, -1e29)),
    "huge list": fig([[i, i * 1e-3] for i in range(2000)]),
    "too many points": {"id": "many", "series": [{"name": str(j), "points": [[i, i] for i in range(2000)]}
                                                 for j in range(6)]},
    "huge integer": fig([[10**400, 1], [1, 1]]),
    # Whiskers (a series' "spread"): a bad one is dropped and the figure still drawn.
    "spread to 1e305": fig(TIMES, "log", "log", spread=[[64, 7.0, 1e305]]),
    "spread from 1e-308": fig(TIMES, spread=[[64, 1e-308, 8.0]]),
    "spread NaN": fig(TIMES, "log", "log", spread=[[64, float("nan"), 8.0]]),
    "spread low above high": fig(TIMES, spread=[[64, 9.0, 7.0]]),
    "spread off the points": fig(TIMES, spread=[[65, 7.0, 8.0]]),
    "spread longer than the points": fig(TIMES, spread=[[64, 7, 8], [128, 29, 31], [64, 7, 8]]),
    "spread to zero on log": fig(TIMES, "log", "log", spread=[[64, 0.0, 8.0]]),
    "spread not a list": fig(TIMES, spread="7..8"),
    "spread huge integer": fig(TIMES, spread=[[64, 7, 10**400]]),
    "spread widest log": fig(TIMES, "log", "log", spread=[[64, 1e-30, 1e30], [128, 30.1, 30.1]]),
    "spread widest linear": fig([[1, 0.0], [2, 0.0]], spread=[[1, -1e30, 1e30]]),
    "spread one value": fig([[3, 2.5], [3, 2.5]], spread=[[3, 2.5, 2.5]]),
    "spread of timings": fig(TIMES, "log", "log", spread=[[64, 7.1, 9.8], [128, 29.5, 41.0]]),
}
# The spreads above that are kept (drawn as whiskers); every other spread case is dropped.
KEPT_SPREADS = {"spread widest log", "spread widest linear", "spread one value", "spread of timings"}
