"""Figures in the feedback: drawn as SVG from the results document's numbers, texts escaped."""

from __future__ import annotations

import re

from app.progress.figures import figure_layout

FIGURE = {
    "id": "step-time", "title": "Time per step <script>alert(1)</script>", "x_label": "width",
    "y_label": "ms", "note": "", "x_scale": "log", "y_scale": "log",
    "series": [{"name": "float32", "points": [[64, 7.4], [1024, 301.6]]},
               {"name": "bfloat16 autocast", "points": [[64, 27.0], [1024, 3756.5]]}],
    "marks": [],
}


def render(app, result):
    with app.test_request_context():
        template = app.jinja_env.from_string(
            '{% from "progress/_submission.html" import feedback %}{{ feedback(result) }}')
        return template.render(result=result)


def test_layout_places_points_inside_the_plot():
    layout = figure_layout(FIGURE)
    assert layout is not None
    for series in layout["series"]:
        for dot in series["dots"]:
            assert layout["left"] <= dot["x"] <= layout["right"]
            assert layout["top"] <= dot["y"] <= layout["bottom"]
    slow, fast = layout["series"][1]["dots"][1], layout["series"][0]["dots"][1]
    assert slow["y"] < fast["y"]  # larger times are higher up


def test_invalid_figures_are_not_drawn():
    assert figure_layout({**FIGURE, "series": [{"name": "x", "points": [[1, float("nan")]]}]}) is None
    assert figure_layout({"id": "<svg>", "series": []}) is None
    assert figure_layout("<svg onload=alert(1)>") is None


def test_feedback_draws_the_figure_and_escapes_its_texts(app):
    html = render(app, {"status": "pass", "message": "", "tests": [], "figures": [FIGURE]})
    assert '<figure class="result-figure" data-figure="step-time">' in html
    assert len(re.findall(r"<circle ", html)) == 4
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_feedback_without_figures_is_unchanged(app):
    html = render(app, {"status": "pass", "message": "", "tests": []})
    assert "result-figure" not in html


def test_counts_get_whole_number_ticks():
    """Optimizer steps 1 and 2 are labelled 1 and 2, not 1, 1.2, 1.4 ..."""
    from app.progress.figures import _axis

    _, ticks = _axis([1, 2], log=False, size=100, flip=False)
    assert ticks == [1, 2]
    _, ticks = _axis([0.5, 1.5], log=False, size=100, flip=False)
    assert any(not float(t).is_integer() for t in ticks)


def test_feedback_draws_a_whisker_per_spread_entry_in_the_series_colour(app):
    spread = {**FIGURE, "series": [
        {**FIGURE["series"][0], "spread": [[64, 7.1, 9.8], [1024, 290.0, 330.5]]},
        {**FIGURE["series"][1], "spread": [[64, 26.0, 80.0], [1024, 3700.0, 3800.0]]}]}
    html = render(app, {"status": "pass", "message": "", "tests": [], "figures": [spread]})
    whiskers = re.findall(r'<g class="figure-whisker" stroke="(#[0-9a-f]{6})"', html)
    assert whiskers == ["#1f77b4"] * 2 + ["#d62728"] * 2
    assert html.count("<line x1=") >= 4 * 3  # a stem and two caps each
    assert "bfloat16 autocast: 64: 26 – 80" in html
    assert len(re.findall(r"<circle ", html)) == 4  # the medians are still the dots
