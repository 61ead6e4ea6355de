"""A time-out names the line the code was still running and the loop around it (issue 25), in the
exercise page at 390 and 1280 px, en and ja: graded for real, with a 3 s limit. It is said once
(issue 34, item 7: the error box and the card it stopped repeated it), in the language of the page
that shows it, on the exercise and the history page."""

from __future__ import annotations

import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from app import create_app
from app.extensions import db
from tests.browser.layout_helpers import DESKTOP, MOBILE, open_editor

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
EXERCISE = "tensors-broadcast"
# The first loop (line 5) ends; the code hangs in the second, in a call that blocks.
CODE = ("import time\n\n\ndef standardize_columns(x):\n    for i in range(3):\n        x = x + 0\n"
        "    while True:\n        for step in range(3):\n            time.sleep(100)\n\n\n"
        "def pairwise_sq_distances(a, b):\n    return a\n")
WORDS = {"en": "When it was stopped it was still running line 9, inside the loop on line 8.",
         "ja": "停止した時点では 8 行目のループの中の 9 行目を実行していました。"}
OLD = {"en": "The first loop of your code is on line 5.", "ja": "コードの最初のループは 5 行目です。"}


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on a copy of the exercise whose time limit is 3 s."""
    root = tmp_path_factory.mktemp("timeout")
    folder = root / "exercises" / EXERCISE
    shutil.copytree(REPO / "exercises" / EXERCISE, folder)
    config = folder / "exercise.toml"
    config.write_text(re.sub(r"time_s = \d+", "time_s = 3", config.read_text(encoding="utf-8")), encoding="utf-8")
    app = create_app({"SECRET_KEY": "browser-test", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{root / 'b.db'}",
                      "GRADER_SANDBOX": "local", "EXERCISES_DIR": str(root / "exercises")})
    with app.app_context():
        db.create_all()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=10)
    app.extensions["grading_queue"].shutdown(wait=True)


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_a_time_out_names_the_running_line_and_its_loop(browser, quick_server, viewport, lang):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    open_editor(page, quick_server, EXERCISE, lang)
    page.evaluate("code => window.laipEditor.setCode(code)", CODE)
    page.click("#submit-button")
    page.wait_for_selector("#results .verdict.error", timeout=180_000)
    shown = page.locator("#results").inner_text()
    assert shown.count(WORDS[lang]) == 1, shown
    assert OLD[lang] not in shown  # the first loop is not where it hung
    other = "ja" if lang == "en" else "en"
    page.goto(f"{quick_server}/lang/{other}?next=/exercises/{EXERCISE}/history")
    shown = page.locator(".history-item .results-panel").first.inner_text()
    assert shown.count(WORDS[other]) == 1 and WORDS[lang] not in shown, shown
    context.close()
