"""A quiz in a real browser: reached from its lesson, answered by clicking, graded, retried."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.loader import load_exercise
from grader.quiz import key_answers, load_quiz

REPO = Path(__file__).resolve().parents[2]
QUIZ = "quiz-training-loop"
# Set QUIZ_SCREENSHOT=path to keep a picture of the graded page (for reviewing the layout).
SCREENSHOT = os.environ.get("QUIZ_SCREENSHOT")

pytestmark = [pytest.mark.browser]


def answer(page, questions, answers):
    for question in questions:
        value = answers[question.id]
        if question.kind == "numeric":
            page.locator(f"input[name='{question.id}']").fill(str(value))
        else:
            for choice in ([value] if isinstance(value, str) else value):
                page.locator(f"input[name='{question.id}'][value='{choice}']").check()


def test_answer_quiz_from_the_lesson_then_retry(browser, live_server):
    exercise = load_exercise(REPO / "exercises" / QUIZ)
    questions = load_quiz(exercise).questions
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))

    page.goto(live_server + "/")
    page.locator("a[href^='/lessons/02-']").first.click()
    page.locator(f"a[href='/quizzes/{QUIZ}']").first.click()
    assert page.locator("fieldset.question").count() == len(questions)

    answer(page, questions, key_answers(exercise))
    page.get_by_role("button", name="Check my answers").click()
    page.wait_for_selector("#result.pass")
    assert page.locator("#best-score").text_content() == "100%"
    assert page.locator(".badge.pass").count() == len(questions)
    if SCREENSHOT:
        page.screenshot(path=SCREENSHOT, full_page=True)

    # A retry with the first question changed: last score drops, best score stays.
    first = questions[0]
    wrong = next(c.id for c in first.choices if c.id not in first.key_ids)
    page.locator(f"input[name='{first.id}'][value='{wrong}']").check()
    page.get_by_role("button", name="Check my answers").click()
    page.wait_for_selector("#result.fail")
    assert page.locator("#best-score").text_content() == "100%"
    assert page.locator("#last-score").text_content() != "100%"
    assert page.locator(f"#q-{first.id} .badge.fail").count() == 1
    assert problems == []
    context.close()
