"""The editor's chart code (app/static/src/figures.js) in Chromium, on the extreme inputs the
server's renderer is tested with: every figure is drawn inside the plot or skipped, and no
input makes it loop (each call runs under a CDP time limit) or throw."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from app.progress.figures import BOTTOM, LEFT, figure_layout
from tests.figure_cases import EXTREMES

pytestmark = pytest.mark.browser
SOURCE = Path(__file__).resolve().parents[2] / "app" / "static" / "src" / "figures.js"

DRAW = """(() => {
  const box = document.createElement("div");
  window.__showFigures(box, %s);
  return [...box.querySelectorAll("figure")].map((figure) => ({
    dots: [...figure.querySelectorAll("circle")].map((c) => [+c.getAttribute("cx"), +c.getAttribute("cy")]),
    ticks: figure.querySelectorAll("svg text").length,
    texts: [...figure.querySelectorAll(":scope > svg text")].map((t) => t.textContent),
    font: figure.querySelector(":scope > svg g").getAttribute("font-size"),
    whiskers: [...figure.querySelectorAll("g.figure-whisker")].map((w) => ({
      color: w.getAttribute("stroke"), title: w.querySelector("title").textContent,
      lines: [...w.querySelectorAll("line")].map((l) => ["x1", "x2", "y1", "y2"].map((a) => +l.getAttribute(a))),
    })),
  }));
})()"""


@pytest.fixture(scope="module")
def page(browser):
    page = browser.new_page()
    page.set_content("<!doctype html><title>figures</title>")
    source = SOURCE.read_text(encoding="utf-8")
    page.add_script_tag(content=source + "\nwindow.__showFigures = showFigures;", type="module")
    page.wait_for_function("typeof window.__showFigures === 'function'", timeout=5000)
    cdp = page.context.new_cdp_session(page)
    yield page, cdp
    page.close()


def draw(cdp, figures):
    # Python's json writes -0.0 as "-0.0" and 1e308 as "1e+308": the browser parses both.
    answer = cdp.send("Runtime.evaluate", {"expression": DRAW % json.dumps(figures),
                                           "returnByValue": True, "timeout": 5000})
    assert "exceptionDetails" not in answer, answer.get("exceptionDetails")
    return answer["result"]["value"]


@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_the_browser_draws_what_the_server_draws(page, name):
    _page, cdp = page
    drawn = draw(cdp, [EXTREMES[name]])
    layout = figure_layout(EXTREMES[name])
    assert len(drawn) == (0 if layout is None else 1)
    for figure in drawn:
        assert figure["ticks"] <= 2 * 12 + 2  # x and y tick labels, the two axis titles
        for x, y in figure["dots"]:
            assert math.isfinite(x) and math.isfinite(y)
            assert LEFT - 0.1 <= x <= 560 - 16 + 0.1 and 16 - 0.1 <= y <= 300 - BOTTOM + 0.1
        # The same layout as the server's, dot for dot.
        server = [v for s in layout["series"] for d in s["dots"] for v in (d["x"], d["y"])]
        assert [v for dot in figure["dots"] for v in dot] == pytest.approx(server, abs=0.11)
        # ... and the same tick labels, written the same way, at the same size (issue 27: one layout).
        ticks = [t["text"] for t in layout["yticks"]] + [t["text"] for t in layout["xticks"]]
        assert figure["texts"][:len(ticks)] == ticks
        assert figure["font"] == str(layout["font"])
        # ... and the same whiskers (issue 24): kept or dropped alike, at the same places.
        server_whiskers = [(s, w) for s in layout["series"] for w in s["whiskers"]]
        assert len(figure["whiskers"]) == len(server_whiskers)
        for drawn_whisker, (s, w) in zip(figure["whiskers"], server_whiskers, strict=True):
            assert drawn_whisker["color"] == s["color"]
            assert drawn_whisker["title"] == f"{s['name']}: {w['label']}"
            expected = [[w["x"], w["x"], w["top"], w["bottom"]],
                        [w["left"], w["right"], w["top"], w["top"]],
                        [w["left"], w["right"], w["bottom"], w["bottom"]]]
            for got, want in zip(drawn_whisker["lines"], expected, strict=True):
                assert got == pytest.approx(want, abs=0.11)


LOSS_SCALE = {"id": "loss-scale", "title": "t", "y_scale": "log", "series": [
    {"name": "GradScaler 1", "points": [[1, 65536.0], [2, 65536.0], [3, 131072.0], [4, 32768.0]]}]}
SPEEDS = {"id": "speed", "title": "t", "x_scale": "log", "y_scale": "log", "series": [
    {"name": "s", "points": [[64, 0.01234567], [256, 12345.678], [1024, 15000000.0]]}]}


@pytest.mark.parametrize("figure, labels", [
    (LOSS_SCALE, ["32768", "65536", "131072"]),  # once only 1e4 and 1e5: 65536 could not be read
    (SPEEDS, ["0.01235", "12350", "1.5e7"]),
])
def test_log_axes_label_their_values_readably_in_both_renderers(page, figure, labels):
    _page, cdp = page
    drawn = draw(cdp, [figure])[0]
    layout = figure_layout(figure)
    assert [t["text"] for t in layout["yticks"]] == labels
    assert drawn["texts"][:len(labels)] == labels


def test_values_the_server_never_sends_do_not_hang_the_browser(page):
    """Bypassing validation (an old row, a tampered response): still total."""
    _page, cdp = page
    hostile = [{"id": "a", "series": [{"name": "s", "points": [[1, 1e308], [2, -1e308]]}]},
               {"id": "b", "series": [{"name": "s", "points": [[1, 1.0], [2, 1.0000000000000002]]}],
                "marks": [{"x": 1e300}, {"x": "x"}, None]},
               {"id": "c", "series": [{"name": "s", "points": [[i, i] for i in range(100_000)]}]},
               {"id": "d", "series": [{"points": "not a list"}, None, 7]},
               {"id": "e", "x_scale": "log", "series": [{"name": "s", "points": [[0, 1], [-1, 2]]}]}]
    drawn = draw(cdp, hostile)
    assert len(drawn) == 1  # b: nearly equal values, one mark in range; c has too many points
    assert len(drawn[0]["dots"]) == 2
