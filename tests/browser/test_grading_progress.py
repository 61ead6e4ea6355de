"""The Submit button tells the truth while a sandbox is started for the job (en and ja)."""

from __future__ import annotations

import re
import threading

import pytest

from grader.api import grade_code

EXERCISE = "amp-train-one-epoch"

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize(("lang", "starting"), [
    ("en", "Starting a sandbox for your code…"),
    ("ja", "サンドボックスを起動しています"),
])
def test_the_button_says_a_sandbox_is_starting(browser, live_app, lang, starting):
    app, url = live_app
    started, go_on = threading.Event(), threading.Event()

    def slow_start(exercise, code, *, lang="en", sandbox=None, on_phase=None):
        # What a sandbox does when no warm one is free: says so, then takes seconds to start.
        on_phase("starting")
        started.set()
        assert go_on.wait(120), "the test never let the start finish"
        return grade_code(exercise, code, lang=lang, sandbox="local")

    app.config["GRADE_FUNCTION"] = slow_start
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale=lang,
                                  extra_http_headers={"Accept-Language": lang})
    try:
        page = context.new_page()
        page.goto(f"{url}/exercises/{EXERCISE}")
        page.wait_for_selector(".cm-editor .cm-content")
        page.locator("#submit-button").click()
        assert started.wait(60)
        button = page.locator("#submit-button")
        page.wait_for_function("text => document.getElementById('submit-button').textContent.includes(text)",
                               arg=starting, timeout=30_000)
        assert re.search(r"\d+ (s|秒)$", button.text_content().strip())  # and the seconds
    finally:
        go_on.set()
    page.wait_for_selector(".verdict", timeout=180_000)
    assert starting not in page.locator("#submit-button").text_content()
    context.close()
