"""Run on function-only code prints nothing: the panel shows what to add to try the functions
(issue 25, item 12), the exercise's own sample call or a generated call of its entry, at 390 and
1280 px in en and ja."""

from __future__ import annotations

import pytest

from tests.browser.layout_helpers import DESKTOP, MOBILE, open_editor

RUN_TIMEOUT_MS = 180_000  # a cold sandbox imports torch: seconds on a busy machine
INTRO = {"en": "Your code defines functions but calls none", "ja": "コードは関数を定義していますが呼び出していない"}

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def run(page) -> None:
    page.locator("#run-button").click()
    page.wait_for_selector("#run-panel[data-state='ok']", timeout=RUN_TIMEOUT_MS)


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("viewport", [MOBILE, DESKTOP], ids=["390", "1280"])
def test_a_silent_run_offers_the_exercises_sample_call(browser, live_server, viewport, lang):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    open_editor(page, live_server, "tensors-broadcast", lang)
    run(page)  # the starter: two functions, no call
    sample = page.locator(".run-sample")
    assert sample.is_visible() and INTRO[lang] in sample.inner_text()
    code = page.locator(".run-sample-code").inner_text()
    assert "print(pairwise_sq_distances(a, b))" in code and "a = torch.tensor(" in code
    page.evaluate("code => window.laipEditor.setCode(code)", "print('hi')\n")
    run(page)
    assert page.locator(".run-output").text_content() == "hi\n" and sample.is_hidden()
    context.close()


def test_without_a_sample_call_the_entry_is_called_with_the_starters_names(browser, live_server):
    page = browser.new_context(viewport=DESKTOP).new_page()
    open_editor(page, live_server, "amp-train-one-epoch", "en")
    run(page)
    assert page.locator(".run-sample").is_visible()
    assert page.locator(".run-sample-code").inner_text().strip() == (
        "print(train_one_epoch(model, loader, optimizer, criterion, scaler, device))")
    assert "inputs of your own" in page.locator(".run-sample").inner_text()
