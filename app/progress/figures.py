"""Chart geometry for the figures of a results document: numbers in, coordinates out (no markup)."""

from __future__ import annotations

import math
from typing import Any

from app.progress import bp
from grader.api import validate_figure

WIDTH, HEIGHT = 560, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 44
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def _ticks(low: float, high: float, log: bool) -> list[float]:
    if log:
        first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
        step = max(1, (last - first) // 6 + 1)
        return [10.0 ** e for e in range(first, last + 1, step)]
    if high == low:
        return [low]
    raw = (high - low) / 5
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    start = math.ceil(low / step) * step
    return [start + i * step for i in range(int((high - start) / step) + 1)]


def _axis(values: list[float], log: bool, size: float, flip: bool):
    low, high = min(values), max(values)
    if log:
        low, high = 10 ** math.floor(math.log10(low)), 10 ** math.ceil(math.log10(high))
    elif low == high:
        low, high = low - 1, high + 1
    else:
        pad = (high - low) * 0.05
        low, high = (0.0 if low >= 0 and low - pad < 0 else low - pad), high + pad

    def place(value: float) -> float:
        if log:
            share = (math.log10(value) - math.log10(low)) / (math.log10(high) - math.log10(low))
        else:
            share = (value - low) / (high - low)
        return (1 - share) * size if flip else share * size

    ticks = [t for t in _ticks(low, high, log) if low <= t <= high]
    if not log and all(float(v).is_integer() for v in values):
        # Counts (steps, widths) get whole-number ticks: "step 1.2" means nothing.
        whole = [t for t in ticks if float(t).is_integer()]
        ticks = whole if len(whole) >= 2 else sorted(set(values))[:8]
    return place, ticks


def _label(value: float) -> str:
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-2):
        return f"{value:.0e}".replace("e+0", "e").replace("e-0", "e-")
    return f"{value:g}"


@bp.app_template_global("figure_layout")
def figure_layout(figure: Any) -> dict[str, Any] | None:
    """Everything the _figures.html macro draws, or None for a figure that is not valid."""
    try:
        fig = validate_figure(figure)
    except (ValueError, TypeError, AttributeError):
        return None
    points = [p for s in fig["series"] for p in s["points"]]
    if not points:
        return None
    xlog, ylog = fig["x_scale"] == "log", fig["y_scale"] == "log"
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    xs = [p[0] for p in points] + [m["x"] for m in fig["marks"] if not xlog or m["x"] > 0]
    place_x, xticks = _axis(xs, xlog, inner_w, flip=False)
    place_y, yticks = _axis([p[1] for p in points], ylog, inner_h, flip=True)
    series = []
    for i, entry in enumerate(fig["series"]):
        dots = [{"x": round(LEFT + place_x(x), 1), "y": round(TOP + place_y(y), 1),
                 "label": f"{_label(x)}, {_label(y)}"} for x, y in entry["points"]]
        series.append({"name": entry["name"], "color": COLORS[i % len(COLORS)], "dots": dots,
                       "path": " ".join(f"{d['x']},{d['y']}" for d in dots),
                       "rows": entry["points"]})
    marks = [{"x": round(LEFT + place_x(m["x"]), 1), "label": m["label"]}
             for m in fig["marks"] if not xlog or m["x"] > 0]
    return {
        "id": fig["id"], "title": fig["title"], "note": fig["note"],
        "x_label": fig["x_label"], "y_label": fig["y_label"],
        "width": WIDTH, "height": HEIGHT, "left": LEFT, "top": TOP,
        "right": WIDTH - RIGHT, "bottom": HEIGHT - BOTTOM,
        "xticks": [{"at": round(LEFT + place_x(t), 1), "text": _label(t)} for t in xticks],
        "yticks": [{"at": round(TOP + place_y(t), 1), "text": _label(t)} for t in yticks],
        "series": series, "marks": marks,
    }
