"""Chart geometry for the figures of a results document: numbers in, coordinates out (no markup).

Total by construction: every figure either gets a layout or None, whatever its numbers (the
one chart renderer: the results panel, app/templates/progress/_panel.html, on every page).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from app.i18n import current_lang
from app.progress import bp
from grader.api import validate_figure

WIDTH, HEIGHT = 560, 300
LEFT, RIGHT, TOP, BOTTOM = 76, 16, 16, 48
FONT = 13  # in viewBox units; the chart is never drawn narrower than MIN_WIDTH px (site.css)
FEW_VALUES = 8  # a log axis with this few distinct values labels each one (65536, not 1e4 .. 1e5)
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
# The renderer's own domain, wider than validation's (grader/figures.py): documents stored
# before validation bounded numbers are drawn when they fit here and skipped otherwise, so no
# arithmetic below can overflow (1e300 * 1.1 is finite) or lose a range to subnormals.
LIMIT, TINY = 1e300, 1e-300
# A range narrower than this share of its magnitude is drawn as one value: 1.0 and
# 1.0000000000000002 differ by one ulp and would otherwise get ticks 1e-17 apart.
MIN_RELATIVE_SPAN = 1e-9
MAX_TICKS = 12
MIN_TICK_GAP = FONT * 1.4  # viewBox units between two tick labels' centres
CAP = 4  # half the width of a whisker's caps, in viewBox units


def drawable(value: float) -> bool:
    return math.isfinite(value) and (value == 0 or TINY <= abs(value) <= LIMIT)


def _linear_range(values: list[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    magnitude = max(abs(low), abs(high))
    if not high - low > magnitude * MIN_RELATIVE_SPAN:
        # Equal or nearly equal values: a window around them, the value in the middle.
        half = magnitude * 0.05 if magnitude > 0 else 1.0
        middle = (low + high) / 2
        return middle - half, middle + half
    pad = (high - low) * 0.05
    return (0.0 if low >= 0 and low - pad < 0 else low - pad), high + pad


def _linear_ticks(low: float, high: float) -> list[float]:
    raw = (high - low) / 5
    magnitude = 10.0 ** math.floor(math.log10(raw)) if raw > 0 else 0.0
    step = next((m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw), 0.0)
    if not step > 0 or not math.isfinite(low / step):
        return [low, high]  # a span too small to divide (cannot happen within LIMIT and TINY)
    start = math.ceil(low / step) * step
    # Counted, never accumulated: adding a step smaller than an ulp would never end.
    count = min(MAX_TICKS, int((high - start) / step) + 1)
    return [start + i * step for i in range(max(count, 0))]


def _axis(values: list[float], log: bool, size: float, flip: bool,
          extra: list[float] | None = None) -> tuple[Callable[[float], float], list[float]]:
    """Where a value goes and the ticks; `extra` (whisker ends) widens the range only, so a
    log axis still labels the points' own few values, not every whisker's end."""
    ranged = values + (extra or [])
    if log:
        first = math.floor(math.log10(min(ranged)))
        last = max(math.ceil(math.log10(max(ranged))), first + 1)
        stride = max(1, (last - first) // 6 + 1)
        ticks = [10.0 ** e for e in range(first, last + 1, stride)]
        distinct = sorted(set(values))
        if len(distinct) <= FEW_VALUES:
            ticks = distinct  # the values themselves: a loss scale of 65536 reads as 65536

        def share(value: float) -> float:
            return (math.log10(value) - first) / (last - first)
    else:
        low, high = _linear_range(ranged)
        ticks = [t for t in _linear_ticks(low, high) if low <= t <= high]
        if all(float(v).is_integer() for v in ranged):
            # Counts (steps, widths) get whole-number ticks: "step 1.2" means nothing.
            whole = [t for t in ticks if float(t).is_integer()]
            ticks = whole if len(whole) >= 2 else sorted(set(ranged))[:8]

        def share(value: float) -> float:
            return (value - low) / (high - low)

    def place(value: float) -> float:
        return (1 - share(value)) * size if flip else share(value) * size

    return place, _apart(ticks, place)


def _apart(ticks: list[float], place: Callable[[float], float]) -> list[float]:
    """Ticks at least a line of text apart: a measure-speed chart's few times on a log axis
    (0.21, 0.22, 0.25 ms) once printed over each other (issue 34, item 7)."""
    kept: list[float] = []
    for tick in sorted(ticks):
        if not kept or abs(place(tick) - place(kept[-1])) >= MIN_TICK_GAP:
            kept.append(tick)
    return kept


def _label(value: float) -> str:
    """A tick's text: whole numbers below 1e7 in full,
    other large or small ones as 1.5e5, the rest with 4 significant digits."""
    if float(value).is_integer() and abs(value) < 1e7:
        return str(int(value))
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-2):
        mantissa, exponent = f"{value:.1e}".split("e")
        return f"{mantissa.removesuffix('.0')}e{int(exponent)}"
    return f"{float(f'{value:.4g}'):g}"


def _in_language(fig: dict[str, Any], lang: str) -> dict[str, Any]:
    """The figure with its words in the page's language where the grader kept them (texts)."""
    words = (fig.get("texts") or {}).get(lang)
    if not words:
        return fig  # stored before figures kept both languages: as graded
    return {**fig, **{key: words[key] for key in ("title", "x_label", "y_label", "note")},
            "series": [{**s, "name": name} for s, name in zip(fig["series"], words["series"], strict=True)],
            "marks": [{**m, "label": label} for m, label in zip(fig["marks"], words["marks"], strict=True)]}


@bp.app_template_global("figure_layout")
def figure_layout(figure: Any) -> dict[str, Any] | None:
    """Everything the _figures.html macro draws, or None for a figure that is not valid."""
    try:
        fig = _in_language(validate_figure(figure), current_lang())
    except (ValueError, TypeError, AttributeError):
        return None
    points = [p for s in fig["series"] for p in s["points"]]
    if not points or not all(drawable(v) for p in points for v in p):
        return None
    xlog, ylog = fig["x_scale"] == "log", fig["y_scale"] == "log"
    marks_in = [m for m in fig["marks"] if drawable(m["x"]) and (not xlog or m["x"] > 0)]
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    place_x, xticks = _axis([p[0] for p in points] + [m["x"] for m in marks_in], xlog, inner_w,
                            flip=False)
    ends = [v for s in fig["series"] for w in s.get("spread", []) for v in w[1:]]
    place_y, yticks = _axis([p[1] for p in points], ylog, inner_h, flip=True, extra=ends)
    series = []
    for i, entry in enumerate(fig["series"]):
        dots = [{"x": round(LEFT + place_x(x), 1), "y": round(TOP + place_y(y), 1),
                 "label": f"{_label(x)}, {_label(y)}"} for x, y in entry["points"]]
        # A whisker from low (bottom) to high (top) at the point's x, capped CAP each side.
        whiskers = [{"x": round(LEFT + place_x(x), 1), "left": round(LEFT + place_x(x) - CAP, 1),
                     "right": round(LEFT + place_x(x) + CAP, 1),
                     "top": round(TOP + place_y(high), 1), "bottom": round(TOP + place_y(low), 1),
                     "label": f"{_label(x)}: {_label(low)} – {_label(high)}"}
                    for x, low, high in entry.get("spread", [])]
        series.append({"name": entry["name"], "color": COLORS[i % len(COLORS)], "dots": dots,
                       "whiskers": whiskers, "path": " ".join(f"{d['x']},{d['y']}" for d in dots),
                       "rows": entry["points"]})
    marks = [{"x": round(LEFT + place_x(m["x"]), 1), "label": m["label"]} for m in marks_in]
    return {
        "id": fig["id"], "title": fig["title"], "note": fig["note"],
        "x_label": fig["x_label"], "y_label": fig["y_label"],
        "width": WIDTH, "height": HEIGHT, "left": LEFT, "top": TOP, "font": FONT,
        "right": WIDTH - RIGHT, "bottom": HEIGHT - BOTTOM,
        "xticks": [{"at": round(LEFT + place_x(t), 1), "text": _label(t)} for t in xticks],
        "yticks": [{"at": round(TOP + place_y(t), 1), "text": _label(t)} for t in yticks],
        "series": series, "marks": marks,
    }
