"""The editor's results view (app/static/src/results.js) in Chromium: the measurement table and
an unverifiable check, from a results document as the API returns it; odd values never throw."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parents[2]
STRINGS = {"pass": "pass", "fail": "fail", "error": "error", "skip": "skipped", "unverifiable": "not verifiable here",
           "verdict_pass": "All checks passed.", "score": "Score", "line": "line", "hint": "Hint",
           "measured_where": "Where this was measured", "cpu": "CPU", "bf16_native": "bfloat16 native",
           "bf16_emulated": "bfloat16 emulated", "threads": "threads", "batch": "batch", "col_width": "width",
           "col_precision": "precision", "col_min": "min", "col_median": "median", "col_max": "max",
           "col_steps": "steps", "col_yours": "yours", "col_peak": "peak", "measured_note": "note",
           "depends_on": "Not run: {title}"}
TABLE = {"device": "cuda", "device_name": "NVIDIA H200", "cpu_model": "<img src=x onerror=alert(1)>",
         "cpu_capability": "AVX512", "cpu_flags": ["avx512f", "amx_bf16"], "bf16_native": True, "threads": 1,
         "torch": "2.13.0", "batch_size": 4096,
         "rows": [{"width": 256, "precision": "float16", "repeats": 9, "min_ms": 0.1234, "median_ms": 0.2,
                   "max_ms": 0.5, "learner_ms": 0.21, "peak_mb": 40.5},
                  {"width": 256, "precision": "float32", "repeats": 9, "min_ms": "x", "median_ms": None,
                   "max_ms": 1e308, "learner_ms": None, "peak_mb": 60}, None, "row"]}
SHOW = """(() => {
  const box = document.createElement("div");
  R.showResult(box, %s, %s, () => {});
  const table = box.querySelector("section.measurement");
  return {machine: table && table.querySelector(".measurement-machine").textContent,
          images: box.querySelectorAll("img").length,
          rows: table ? [...table.querySelectorAll("tbody tr")].map((tr) =>
            [...tr.children].map((td) => td.textContent)) : null,
          badges: [...box.querySelectorAll(".badge")].map((b) => b.textContent),
          unverifiable: box.querySelectorAll("li.unverifiable").length};
})()"""


@pytest.fixture(scope="module")
def page(browser):
    bundle = subprocess.run([str(REPO / "node_modules/.bin/esbuild"), str(REPO / "app/static/src/results.js"),
                             "--bundle", "--format=iife", "--global-name=R"],
                            check=True, capture_output=True, text=True).stdout
    page = browser.new_page()
    page.set_content("<!doctype html><title>results</title>")
    page.add_script_tag(content=bundle + "\nwindow.R = R;")
    page.wait_for_function("typeof window.R === 'object'", timeout=5000)
    yield page
    page.close()


def show(page, result):
    return page.evaluate(SHOW % (json.dumps(result), json.dumps(STRINGS)))


def test_the_table_shows_the_machine_and_the_spread_and_odd_values_as_dashes(page):
    sync = {"check": "cuda-synchronize", "title": "sync", "status": "skip", "unverifiable": True,
            "message": "no GPU here", "points": 0, "max_points": 0}
    seen = show(page, {"status": "pass", "score": 1.0, "tests": [sync], "measurement": TABLE})
    assert seen["images"] == 0  # texts are text, never markup
    assert seen["machine"].startswith("NVIDIA H200, bfloat16 native; CPU: <img")
    assert "threads 1; torch 2.13.0; batch 4096" in seen["machine"]
    assert seen["rows"] == [["256", "float16", "0.123", "0.2", "0.5", "9", "0.21", "40.5"],
                            ["256", "float32", "–", "–", "1e+308", "9", "–", "60"]]
    assert seen["badges"] == ["not verifiable here"] and seen["unverifiable"] == 1


def test_no_table_without_a_measurement_and_a_plain_skip_stays_skipped(page):
    skip = {"check": "c", "title": "t", "status": "skip", "message": "depends on 'x'"}
    for measurement in (None, "text", {"rows": []}, {"rows": "many"}):
        seen = show(page, {"status": "fail", "score": 0.5, "tests": [skip], "measurement": measurement})
        assert seen["rows"] is None and seen["badges"] == ["skipped"] and seen["unverifiable"] == 0
