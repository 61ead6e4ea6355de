"""The loss-scale chart on a phone and a desktop, in en and ja (issue 25): its log axis names the
scales (65536 can be read), its text is at least 10 px on screen, and it never widens the page.
The editor and the submission page show the one server-drawn panel (figures.py): the same labels."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.extensions import db
from app.models import Submission
from tests.browser.layout_helpers import CODE_EXERCISE, DESKTOP, MOBILE, log_in, make_account, overflow, result_document

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIGURE = {"id": "loss-scale", "title": "Your loss scale, step by step", "x_label": "optimizer step",
          "y_label": "scaler.get_scale()", "y_scale": "log", "note": "",
          "series": [{"name": "GradScaler 1", "points": [[1, 65536.0], [2, 65536.0], [3, 32768.0]]}],
          "marks": [{"x": 3, "label": "stopped: scaler.step raised an error"}]}
TICKS = "() => [...document.querySelectorAll('.result-figure > svg text')].map((t) => t.textContent)"
SMALLEST = ("() => Math.min(...[...document.querySelectorAll('.result-figure > svg text')]"
            ".map((t) => t.getBoundingClientRect().height))")


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_the_loss_scale_chart_is_readable(browser, live_app, viewport, lang):
    app, base = live_app
    email = f"chart-{lang}-{viewport['width']}@example.com"
    _, key = make_account(app, email)
    with app.app_context():
        sub = Submission(exercise_id=CODE_EXERCISE, learner=key, lang=lang, status="done",
                         code="import torch\n", result={**result_document(), "figures": [FIGURE]},
                         created_at=datetime.now(UTC))
        db.session.add(sub)
        db.session.commit()
        sub_id = sub.id
        db.session.remove()
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    log_in(page, base, email)
    if lang == "ja":
        page.goto(base + "/lang/ja?next=/")
    labels = []
    for url in (f"{base}/exercises/{CODE_EXERCISE}", f"{base}/submissions/{sub_id}"):
        page.goto(url)
        page.wait_for_selector(".result-figure > svg text")
        texts = page.evaluate(TICKS)
        assert "65536" in texts and "32768" in texts, texts  # once "1e4" and "1e5" only
        assert page.evaluate(SMALLEST) >= 10, page.evaluate(SMALLEST)  # about 5 px at 390 before
        assert overflow(page) == 0
        labels.append([t for t in texts if t.isdigit()])
    assert labels[0] == labels[1]  # the browser and the server label the axes alike
    context.close()
