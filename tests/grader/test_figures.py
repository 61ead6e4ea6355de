"""The optional "figures" field: numbers and plain texts only, validated wherever a document enters."""

from __future__ import annotations

import math

import pytest

from grader import figures
from grader.results import Results, validate_document

FIGURE = {"id": "step-time", "title": {"en": "Time per step", "ja": "1 ステップの時間"},
          "x_label": "width", "y_label": "ms", "x_scale": "log",
          "series": [{"name": "float32", "points": [[64, 7.5], [1024, 300.0]]}],
          "marks": [{"x": 64, "label": {"en": "small", "ja": "小"}}]}


def test_take_localizes_validates_and_empties_the_queue():
    figures.take("en")
    figures.add(FIGURE)
    got = figures.take("ja")
    assert got[0]["title"] == "1 ステップの時間" and got[0]["marks"] == [{"x": 64.0, "label": "小"}]
    assert got[0]["series"][0]["points"] == [[64.0, 7.5], [1024.0, 300.0]]
    assert figures.take("en") == []


def test_a_bad_figure_is_dropped_not_fatal():
    figures.add({**FIGURE, "series": [{"name": "x", "points": [[1, math.inf]]}]})
    figures.add(FIGURE)
    assert [f["id"] for f in figures.take("en")] == ["step-time"]


@pytest.mark.parametrize("bad", [
    {"id": "Bad Id", "series": [{"name": "a", "points": []}]},
    {"id": "x", "series": []},
    {"id": "x", "series": [{"name": "a", "points": [[1, 2, 3]]}]},
    {"id": "x", "series": [{"name": "a", "points": [[True, 2]]}]},
    {"id": "x", "series": [{"name": "<b>" * 100, "points": []}]},
    {"id": "x", "y_scale": "log", "series": [{"name": "a", "points": [[1, 0]]}]},
    {"id": "x", "x_scale": "cubic", "series": [{"name": "a", "points": []}]},
])
def test_validate_figure_rejects(bad):
    with pytest.raises(ValueError):
        figures.validate_figure(bad)


def test_results_document_carries_figures_and_validates_them():
    doc = Results(exercise="e", status="pass", score=1.0).to_dict()
    assert doc["figures"] == []
    doc["figures"] = [figures.validate_figure({**FIGURE, "title": "t", "marks": []})]
    assert validate_document(doc)["figures"][0]["id"] == "step-time"
    # A figure that is not valid is dropped and the verdict kept: a chart never costs a grade.
    doc["figures"] = [{"id": "x", "series": "<svg onload=alert(1)>"}, doc["figures"][0]]
    assert [f["id"] for f in validate_document(doc)["figures"]] == ["step-time"]
    doc["figures"] = "<svg onload=alert(1)>"  # not a list at all: the document is refused
    with pytest.raises(ValueError):
        validate_document(doc)
    del doc["figures"]  # documents from before figures existed stay valid
    assert validate_document(doc)


def test_take_keeps_a_valid_spread_and_drops_a_bad_one_with_its_figure_kept():
    """Issue 24: whiskers per point travel through the harness's localizing and validation."""
    figures.take("en")
    good = [[64, 7.0, 8.25], [1024, 290, 330]]
    figures.add({**FIGURE, "series": [{**FIGURE["series"][0], "spread": good}]})
    figures.add({**FIGURE, "series": [{**FIGURE["series"][0], "spread": [[64, 8.0, 7.0]]}]})
    kept, dropped = figures.take("en")
    assert kept["series"][0]["spread"] == [[64.0, 7.0, 8.25], [1024.0, 290.0, 330.0]]
    assert "spread" not in dropped["series"][0] and dropped["series"][0]["points"]


def test_take_keeps_the_words_in_both_languages():
    """A page shows a chart in its reader's language, not the one it was graded in (issue 34)."""
    figures.add(FIGURE)
    got = figures.take("en")[0]
    assert got["title"] == "Time per step"
    assert got["texts"]["ja"]["title"] == "1 ステップの時間" and got["texts"]["ja"]["marks"] == ["小"]
    assert got["texts"]["en"]["series"] == ["float32"]
    # Words that do not fit the figure are dropped, the figure kept.
    kept = figures.validate_figure({**got, "texts": {"ja": {**got["texts"]["ja"], "series": []}}})
    assert "texts" not in kept and kept["title"] == "Time per step"
