"""Numbers from learner code are data: extreme chart inputs are refused on the way in, and the
server's renderer draws or skips any figure without raising (stored rows predate validation)."""

from __future__ import annotations

import math

import pytest

from app.extensions import db
from app.models import Submission
from app.progress.figures import BOTTOM, HEIGHT, MAX_TICKS, WIDTH, _axis, figure_layout
from grader.figures import validate_figure, validate_figures
from grader.results import validate_document
from tests.app.accounts_helpers import signed_in
from tests.figure_cases import EXTREMES, KEPT_SPREADS, NEAR, TIMES, fig


def assert_drawn_inside(layout):
    for series in layout["series"]:
        for dot in series["dots"]:
            assert layout["left"] - 0.1 <= dot["x"] <= layout["right"] + 0.1
            assert layout["top"] - 0.1 <= dot["y"] <= layout["bottom"] + 0.1
        for whisker in series["whiskers"]:  # the y-range includes the whiskers' ends
            assert layout["left"] - 0.1 <= whisker["x"] <= layout["right"] + 0.1
            assert layout["top"] - 0.1 <= whisker["top"] <= whisker["bottom"] <= layout["bottom"] + 0.1
    for axis in ("xticks", "yticks"):
        assert len(layout[axis]) <= MAX_TICKS
        assert all(math.isfinite(t["at"]) and -1 <= t["at"] <= max(WIDTH, HEIGHT) + 1
                   for t in layout[axis])


@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_the_server_renderer_draws_or_skips_every_extreme(name):
    layout = figure_layout(EXTREMES[name])  # raises or loops for ever: the test fails
    if layout is not None:
        assert_drawn_inside(layout)


def test_what_is_drawn_and_what_is_skipped():
    drawn = {name for name, figure in EXTREMES.items() if figure_layout(figure) is not None}
    # Out of the validated range (0 or 1e-30..1e30 in size), or too many: not drawn.
    assert {"measured 1.5e305 s", "1e308 linear", "1e308 equal", "1e-308", "1e-308 log",
            "tiny span near zero", "too many points", "huge integer"}.isdisjoint(drawn)
    assert {"negative zero", "equal values", "speed-ups 1.0 vs next float", "nearly equal large",
            "nearly equal log", "marks far outside", "huge list"} <= drawn


def test_bad_spreads_are_dropped_and_their_figures_kept():
    spreads = {name: figure for name, figure in EXTREMES.items() if name.startswith("spread")}
    for name, figure in spreads.items():
        clean = validate_figure(figure)  # never raises for a spread: the figure is kept
        layout = figure_layout(figure)
        assert layout is not None, name
        kept = "spread" in clean["series"][0]
        assert kept == (name in KEPT_SPREADS), name
        assert bool(layout["series"][0]["whiskers"]) == kept, name
    # A figure without spreads carries none: documents from before spreads read the same.
    assert "spread" not in validate_figure(fig(TIMES))["series"][0]


def test_whiskers_span_low_to_high_and_widen_the_y_range():
    layout = figure_layout(EXTREMES["spread of timings"])
    dots, whiskers = layout["series"][0]["dots"], layout["series"][0]["whiskers"]
    assert [w["x"] for w in whiskers] == [d["x"] for d in dots]
    for dot, whisker in zip(dots, whiskers, strict=True):
        assert whisker["top"] < dot["y"] < whisker["bottom"]  # 9.8 above 7.4 above 7.1
        assert whisker["left"] < whisker["x"] < whisker["right"]
    # 41 ms, above every median, is still inside the plot; the ticks stay the medians.
    assert whiskers[1]["top"] >= layout["top"] - 0.1
    assert [t["text"] for t in layout["yticks"]] == ["7.4", "30.1"]
    assert "41" in whiskers[1]["label"] and "29.5" in whiskers[1]["label"]
    linear = figure_layout(EXTREMES["spread widest linear"])
    assert linear["series"][0]["whiskers"][0]["top"] == pytest.approx(linear["top"], abs=15)


def test_equal_and_nearly_equal_values_sit_in_the_middle():
    for name in ("equal values", "speed-ups 1.0 vs next float", "negative zero"):
        layout = figure_layout(EXTREMES[name])
        ys = {dot["y"] for dot in layout["series"][0]["dots"]}
        assert ys == {round(16 + (300 - 16 - BOTTOM) / 2, 1)}, name
        assert layout["yticks"], name  # the value still gets a labelled tick


@pytest.mark.parametrize("values", [[1e300, 1e300], [-1e300, 1e300], [1e-300, 1e-300],
                                    [0.0, 1e-300], [1.0, NEAR], [0.0, 0.0], [-0.0, 0.0],
                                    [1e300 * NEAR, 1e300], [5.0] * 3])
def test_the_axis_itself_is_total_on_its_whole_domain(values):
    """Below validation: the renderer's own domain is 0 or 1e-300..1e300 in size."""
    place, ticks = _axis(values, log=False, size=100, flip=False)
    assert len(ticks) <= MAX_TICKS
    assert all(0 <= place(v) <= 100 for v in values)
    if all(v > 0 for v in values):
        place, ticks = _axis(values, log=True, size=100, flip=True)
        assert all(0 <= place(v) <= 100 for v in values) and len(ticks) <= 8


def test_validation_bounds_numbers_and_normalises_negative_zero():
    with pytest.raises(ValueError, match="between 1e-30 and 1e30"):
        validate_figure(fig([[1, 1.5e305]]))
    with pytest.raises(ValueError, match="between 1e-30 and 1e30"):
        validate_figure(fig([[1, 1e-308]]))
    with pytest.raises(ValueError, match="finite"):
        validate_figure(fig([[1, 10**400]]))
    with pytest.raises(ValueError, match="2000 points in all"):
        validate_figure(EXTREMES["too many points"])
    clean = validate_figure(fig([[-0.0, 1e30], [1e-30, -1e30]]))
    assert math.copysign(1, clean["series"][0]["points"][0][0]) == 1  # -0.0 became 0.0


def test_a_document_keeps_its_verdict_and_drops_a_bad_figure():
    doc = {"version": 1, "exercise": "amp-measure-speed", "status": "fail", "score": 0.5,
           "tests": [{"name": "t", "check": "c", "title": "T", "status": "fail",
                      "message": "x" * 5000}],
           "figures": [EXTREMES["measured 1.5e305 s"], fig([[1, 2], [2, 3]])]}
    clean = validate_document(doc)
    assert [f["id"] for f in clean["figures"]] == ["extreme"] and len(clean["figures"]) == 1
    assert clean["figures"][0]["series"][0]["points"] == [[1.0, 2.0], [2.0, 3.0]]
    assert len(clean["tests"][0]["message"]) == 1001  # cut, with an ellipsis
    assert validate_figures([EXTREMES["huge list"]] * 6)[2:] == []  # 4000 points per document


@pytest.mark.parametrize("field, value", [("score", float("nan")), ("score", 1.5),
                                          ("duration_s", float("inf")), ("duration_s", 1e300),
                                          ("tests", [{"status": "pass"}] * 51),
                                          ("tests", [{"status": "pass", "points": float("nan")}]),
                                          ("tests", [{"status": "pass", "line": 10**12}]),
                                          ("advice", ["x"] * 21), ("message", ["not text"])])
def test_a_document_out_of_range_is_refused_with_the_field_named(field, value):
    doc = {"version": 1, "exercise": "e", "status": "pass", "score": 1.0, "tests": [],
           field: value}
    with pytest.raises(ValueError) as refused:
        validate_document(doc)
    assert field.rstrip("s") in str(refused.value) or "test" in str(refused.value)


def test_pages_with_a_stored_extreme_figure_answer(app):
    """A row stored before validation bounded numbers: the pages answer, the chart is skipped."""
    client = signed_in(app, "measurer@example.org")
    with client.session_transaction() as session:
        user = int(session["_user_id"].split(":")[0])
    from app.models import User

    with app.app_context():
        learner = db.session.get(User, user).learner_key
        result = {"version": 1, "status": "pass", "score": 1.0, "tests": [],
                  "figures": [EXTREMES[name] for name in ("measured 1.5e305 s", "1e308 linear",
                                                          "speed-ups 1.0 vs next float")]}
        sub = Submission(exercise_id="add-numbers", learner=learner, code="x = 1\n",
                         status="done", result=result)
        db.session.add(sub)
        db.session.commit()
        sub_id = sub.id
        db.session.remove()
    for url in (f"/submissions/{sub_id}", "/exercises/add-numbers/history",
                f"/submissions/{sub_id}/code"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.get_data(as_text=True).count('class="result-figure"') == 1, url
