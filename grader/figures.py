"""Charts in the feedback: numbers only, checked on the way in and out; the web app draws them."""

from __future__ import annotations

import math
import re
from typing import Any

from grader.testing import Text, localize

MAX_FIGURES, MAX_SERIES, MAX_POINTS, MAX_MARKS, MAX_TEXT = 6, 6, 2000, 500, 200
# Points of one figure, all series together, and of one document's figures together: what a
# page draws (a circle and a table row each) is bounded whatever the learner's code returns.
MAX_FIGURE_POINTS, MAX_DOCUMENT_POINTS = 2000, 4000
# Numbers come from learner code (a measured time, a loss scale): finite, and 0 or of a size
# between these, so no chart arithmetic on them overflows or vanishes into subnormals.
MAX_MAGNITUDE, MIN_MAGNITUDE = 1e30, 1e-30
SCALES = ("linear", "log")
LANGS = ("en", "ja")  # a figure's words are kept in each, so a page shows them in its own
_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")

_pending: list[dict[str, Any]] = []


def add(figure: dict[str, Any]) -> None:
    """Queue a figure for this grading's results (titles may still be {"en", "ja"} texts)."""
    if len(_pending) < MAX_FIGURES:
        _pending.append(figure)


def take(lang: str) -> list[dict[str, Any]]:
    """The queued figures in the learner's language, validated, and an empty queue after.

    A figure that fails validation is dropped: a chart must never cost the learner a verdict.
    """
    queued = list(_pending)
    _pending.clear()
    kept = []
    for figure in queued:
        try:
            words = {other: _words(_localized(figure, other)) for other in LANGS}
            kept.append(validate_figure({**_localized(figure, lang), "texts": words}))
        except (ValueError, TypeError, AttributeError):
            continue
    return kept


def _localized(figure: dict[str, Any], lang: str) -> dict[str, Any]:
    def text(value: Text | None) -> str:
        return localize(value, lang)

    out = {key: figure[key] for key in ("id", "x_scale", "y_scale") if key in figure}
    out.update(title=text(figure.get("title")), x_label=text(figure.get("x_label")),
               y_label=text(figure.get("y_label")), note=text(figure.get("note")))
    out["series"] = [{"name": text(s.get("name")), "points": s.get("points", []),
                      **({"spread": s["spread"]} if "spread" in s else {})}
                     for s in figure.get("series", [])]
    out["marks"] = [{"x": m.get("x"), "label": text(m.get("label"))} for m in figure.get("marks", [])]
    return out


def _words(figure: dict[str, Any]) -> dict[str, Any]:
    """A localized figure's words only: what a page swaps in for its reader's language."""
    return {**{key: figure[key] for key in ("title", "x_label", "y_label", "note")},
            "series": [s["name"] for s in figure["series"]], "marks": [m["label"] for m in figure["marks"]]}


def _texts(raw: Any, series: int, marks: int) -> dict[str, Any]:
    """The optional "texts" of a figure, {lang: words}, checked like its own words; texts that
    do not fit (a name short, a language unknown) are dropped, the figure kept (issue 34: charts
    once kept the language they were graded in)."""
    if not isinstance(raw, dict) or not set(raw) <= set(LANGS):
        return {}
    clean = {}
    try:
        for lang, words in raw.items():
            names, labels = words.get("series"), words.get("marks")
            if not isinstance(names, list) or len(names) != series or not isinstance(labels, list) \
                    or len(labels) != marks:
                return {}
            clean[lang] = {**{key: _text(words.get(key, "")) for key in ("title", "x_label", "y_label", "note")},
                           "series": [_text(n) for n in names], "marks": [_text(m) for m in labels]}
    except (ValueError, AttributeError):
        return {}
    return clean


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("figure numbers must be numbers")
    try:
        number = float(value)
    except OverflowError:  # an int beyond any float
        raise ValueError("figure numbers must be finite") from None
    if not math.isfinite(number):
        raise ValueError("figure numbers must be finite")
    if number != 0 and not MIN_MAGNITUDE <= abs(number) <= MAX_MAGNITUDE:
        raise ValueError("figure numbers must be 0 or between 1e-30 and 1e30 in size")
    return number + 0.0  # -0.0 becomes 0.0: one zero, drawn and labelled alike


def _text(value: Any) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise ValueError("figure texts must be strings of at most 200 characters")
    return value


def _spread(raw: Any, points: list[list[float]], log: bool) -> list[list[float]]:
    """A series' optional whiskers, [[x, low, high], ...]: one per point at most, each at a
    point's x, low <= high (positive on a log axis); raises ValueError on anything else."""
    if not isinstance(raw, list) or len(raw) > len(points):
        raise ValueError("a spread is a list of at most one [x, low, high] per point")
    xs = {p[0] for p in points}
    clean = []
    for entry in raw:
        if not isinstance(entry, (list, tuple)) or len(entry) != 3:
            raise ValueError("a spread entry is [x, low, high]")
        x, low, high = (_number(v) for v in entry)
        if x not in xs or not low <= high or (log and low <= 0):
            raise ValueError("a spread entry needs a point's x and 0 < low <= high on a log axis")
        clean.append([x, low, high])
    return clean


def validate_figure(figure: Any) -> dict[str, Any]:
    """A figure as the results document carries it; raises ValueError on anything else.

    {"id", "title", "x_label", "y_label", "note", "x_scale", "y_scale",
     "series": [{"name", "points": [[x, y], ...], "spread"?: [[x, low, high], ...]}],
     "marks": [{"x", "label"}], "texts"?: {lang: {"title", ..., "series": [names], "marks": [labels]}}}

    A series' spread that is not valid is dropped and the figure kept: whiskers are extra.
    """
    if not isinstance(figure, dict) or not _ID.fullmatch(str(figure.get("id", ""))):
        raise ValueError("a figure needs an id of lowercase letters, digits and dashes")
    series = figure.get("series")
    if not isinstance(series, list) or not 1 <= len(series) <= MAX_SERIES:
        raise ValueError("a figure needs 1 to 6 series")
    clean_series = []
    total = 0
    for entry in series:
        points = entry.get("points") if isinstance(entry, dict) else None
        if not isinstance(points, list) or len(points) > MAX_POINTS:
            raise ValueError("a series needs a list of at most 2000 points")
        total += len(points)
        if total > MAX_FIGURE_POINTS:
            raise ValueError("a figure has at most 2000 points in all")
        pairs = []
        for point in points:
            if not isinstance(point, (list, tuple)) or len(point) != 2:
                raise ValueError("a point is a pair [x, y]")
            pairs.append([_number(point[0]), _number(point[1])])
        clean_series.append({"name": _text(entry.get("name", "")), "points": pairs,
                             "spread": entry.get("spread")})
    marks = figure.get("marks", [])
    if not isinstance(marks, list) or len(marks) > MAX_MARKS:
        raise ValueError("marks must be a list of at most 500 entries")
    clean_marks = [{"x": _number(m.get("x") if isinstance(m, dict) else None),
                    "label": _text(m.get("label", ""))} for m in marks]
    scales = {}
    for key in ("x_scale", "y_scale"):
        scale = figure.get(key, "linear")
        if scale not in SCALES:
            raise ValueError("a scale is 'linear' or 'log'")
        if scale == "log" and any(p[0 if key == "x_scale" else 1] <= 0
                                  for s in clean_series for p in s["points"]):
            raise ValueError("a log scale needs positive numbers")
        scales[key] = scale
    for entry in clean_series:
        raw = entry.pop("spread")
        if raw is not None:
            try:
                entry["spread"] = _spread(raw, entry["points"], scales["y_scale"] == "log")
            except (ValueError, TypeError):
                pass  # bad whiskers cost neither the series nor the figure
    texts = _texts(figure.get("texts"), len(clean_series), len(clean_marks))
    return {"id": figure["id"], "title": _text(figure.get("title", "")),
            "x_label": _text(figure.get("x_label", "")), "y_label": _text(figure.get("y_label", "")),
            "note": _text(figure.get("note", "")), **scales,
            "series": clean_series, "marks": clean_marks, **({"texts": texts} if texts else {})}


def validate_figures(figures: Any) -> list[dict[str, Any]]:
    """The optional "figures" field of a results document (absent means none).

    A figure that is not valid, or that would take the document past MAX_DOCUMENT_POINTS, is
    dropped, not the document: a chart must never cost the learner a verdict.
    """
    if figures is None:
        return []
    if not isinstance(figures, list):
        raise ValueError("figures must be a list")
    kept, total = [], 0
    for figure in figures[:MAX_FIGURES]:
        try:
            clean = validate_figure(figure)
        except (ValueError, TypeError, AttributeError):
            continue
        points = sum(len(s["points"]) for s in clean["series"])
        if total + points <= MAX_DOCUMENT_POINTS:
            kept.append(clean)
            total += points
    return kept
