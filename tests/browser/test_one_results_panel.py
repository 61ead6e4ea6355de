"""One results view (issue 34): the exercise page swaps in the panel the server renders, and the
history page, the submission page and the editor show the same panel for the same submission:
verdict, checks (skipped ones grouped), hints, a named chart with its numbers table, the
measurement table, advice and output. English and Japanese."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.extensions import db
from app.models import Submission
from tests.browser.layout_helpers import CODE_EXERCISE, DESKTOP, log_in, make_account, result_document

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIGURE = {"id": "loss-scale", "title": "Your loss scale, step by step", "x_label": "optimizer step",
          "y_label": "scaler.get_scale()", "y_scale": "log", "note": "",
          "series": [{"name": "GradScaler 1", "points": [[1, 65536.0], [2, 65536.0], [3, 32768.0]]}],
          "marks": [{"x": 3, "label": "stopped: scaler.step raised an error"}]}
MEASUREMENT = {"device": "cpu", "device_name": "", "cpu_model": "Test CPU", "cpu_capability": "AVX2",
               "cpu_flags": ["avx2"], "bf16_native": False, "threads": 1, "torch": "2.13.0", "batch_size": 64,
               "rows": [{"width": 256, "precision": "float32", "repeats": 9, "min_ms": 0.12, "median_ms": 0.2,
                         "max_ms": 0.5, "learner_ms": 0.21, "peak_mb": 0}]}
# The panel's text without the editor's own controls (the hint ladder's button).
PANEL_TEXT = """(selector) => {
  const panel = document.querySelector(selector).cloneNode(true);
  for (const node of panel.querySelectorAll(".hint-more")) node.remove();
  for (const node of panel.querySelectorAll("details")) node.open = true;
  return panel.textContent.replace(/\\s+/g, " ").trim();
}"""


def _document() -> dict:
    doc = result_document("fail")
    skipped = [{"name": f"test_more_{i}", "check": f"more-{i}", "status": "skip", "title": f"Check {i}",
                "message": "", "blocked_by": "distances-shape", "hint": "", "line": None,
                "points": 0, "max_points": 1} for i in range(3)]
    return {**doc, "tests": doc["tests"] + skipped, "figures": [FIGURE], "measurement": MEASUREMENT,
            "advice": ["Use `torch.cdist` for large inputs."], "output": "printed by the learner\n"}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_history_submission_and_editor_show_the_same_panel(browser, live_app, lang):
    app, base = live_app
    email = f"panel-{lang}@example.org"
    _, key = make_account(app, email)
    with app.app_context():
        sub = Submission(exercise_id=CODE_EXERCISE, learner=key, lang="en", status="done",
                         code="import torch\n", result=_document(), created_at=datetime.now(UTC))
        db.session.add(sub)
        db.session.commit()
        sub_id = sub.id
        db.session.remove()
    page = browser.new_context(viewport=DESKTOP).new_page()
    log_in(page, base, email)
    page.goto(f"{base}/lang/{lang}?next=/")
    texts = {}
    for name, url, selector in (("editor", f"/exercises/{CODE_EXERCISE}", "#results .results-panel"),
                                ("history", f"/exercises/{CODE_EXERCISE}/history", ".history-item .results-panel"),
                                ("submission", f"/submissions/{sub_id}", ".feedback .results-panel")):
        page.goto(base + url)
        page.wait_for_selector(selector)
        texts[name] = page.evaluate(PANEL_TEXT, selector)
        panel = page.locator(selector)
        # The chart is named and has its numbers; the skipped checks are one card.
        assert panel.locator('.result-figure svg[role="img"]').get_attribute("aria-label") == FIGURE["title"]
        assert panel.locator(".result-figure table.figure-data tbody tr").count() == 3
        assert panel.locator(".skip-group").count() == 1
        assert panel.locator("[data-measurement] tbody tr").count() == 1
    assert texts["editor"] == texts["history"] == texts["submission"], texts
    assert "printed by the learner" in texts["editor"] and "torch.cdist" in texts["editor"]
    # The editor's references are buttons that move its cursor; the hint ladder is offered there.
    page.goto(f"{base}/exercises/{CODE_EXERCISE}")
    page.wait_for_selector("#results .results-panel button.line-link[data-line='12']")
    assert page.locator("#results .hint-more").count() == 1
    page.context.close()
