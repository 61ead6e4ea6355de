"""Run without grading in a real browser: the Run button shows output, then where code stopped."""

from __future__ import annotations

import pytest

EXERCISE = "amp-train-one-epoch"
RUN_TIMEOUT_MS = 180_000  # a cold sandbox imports torch: seconds on a busy machine

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_run_shows_output_then_the_line_it_stopped_on(browser, live_server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))

    page.goto(f"{live_server}/exercises/{EXERCISE}")
    page.wait_for_selector(".cm-editor .cm-content")
    assert page.locator("#run-panel").is_hidden()

    page.evaluate("code => window.laipEditor.setCode(code)",
                  "print('hello <b id=\"injected\">there</b>')\n")
    page.get_by_role("button", name="Run").click()
    page.wait_for_selector("#run-panel[data-state='ok']", timeout=RUN_TIMEOUT_MS)
    assert page.locator(".run-output").text_content() == 'hello <b id="injected">there</b>\n'
    assert page.locator("#injected").count() == 0  # output is text, never markup
    assert "without errors" in page.locator(".run-status").text_content()
    assert page.locator("#progress").get_attribute("data-status") is None  # nothing was submitted
    assert page.locator("#results").inner_text() == ""

    page.evaluate("code => window.laipEditor.setCode(code)", "print('before')\nvalue = 1 / 0\n")
    page.get_by_role("button", name="Run").click()
    page.wait_for_selector("#run-panel[data-state='error']", timeout=RUN_TIMEOUT_MS)
    assert page.locator(".run-output").text_content() == "before\n"
    status = page.locator(".run-status").text_content()
    assert "ZeroDivisionError" in status and "line 2" in status
    assert "value = 1 / 0" in page.locator(".run-traceback").text_content()
    assert page.get_by_role("button", name="Run").is_enabled()
    assert problems == []
    context.close()


def test_stop_ends_an_endless_run_and_the_page_says_so(browser, live_server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(f"{live_server}/exercises/{EXERCISE}")
    page.wait_for_selector(".cm-editor .cm-content")
    assert page.locator("#stop-button").is_hidden()

    page.evaluate("code => window.laipEditor.setCode(code)", "import time\ntime.sleep(10**6)\n")
    page.get_by_role("button", name="Run").click()
    stop = page.get_by_role("button", name="Stop")
    stop.wait_for(state="visible", timeout=RUN_TIMEOUT_MS)
    page.locator(".run-status", has_text="Running for").wait_for(timeout=RUN_TIMEOUT_MS)
    stop.click()
    page.wait_for_selector("#run-panel[data-state='error']", timeout=RUN_TIMEOUT_MS)
    assert "You stopped your code" in page.locator(".run-status").text_content()
    assert page.locator("#stop-button").is_hidden()
    assert page.get_by_role("button", name="Run").is_enabled()
    assert problems == []
    context.close()
