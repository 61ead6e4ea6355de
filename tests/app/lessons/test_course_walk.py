"""Walks the real course in both languages: every lesson, exercise and quiz page renders, in that language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.api import LESSONS, load_exercises

REPO = Path(__file__).resolve().parents[3]
EXERCISES = load_exercises(REPO / "exercises")
JAPANESE = re.compile(r"[\u3040-\u30ff]")  # hiragana or katakana: Japanese text, not just kanji


@pytest.fixture
def course(make_app):
    app = make_app(LESSONS_DIR=str(REPO / "lessons"), EXERCISES_DIR=str(REPO / "exercises"))
    return app.test_client()


def fetch(client, path: str, lang: str) -> str:
    client.set_cookie("lang", lang)
    response = client.get(path, follow_redirects=True)
    assert response.status_code == 200, (path, lang, response.status_code)
    return response.get_data(as_text=True)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_lesson_renders_in_both_languages(course, lang: str) -> None:
    home = fetch(course, "/", lang)
    lesson_links = sorted(set(re.findall(r'href="(/lessons/[\w-]+/)"', home)))
    assert len(lesson_links) == LESSONS, lesson_links
    for link in lesson_links:
        page = fetch(course, link, lang)
        assert "<h2" in page and "<pre" in page  # sections and highlighted code rendered
        assert "!!!" not in page and "{{" not in page  # no raw admonition or template syntax
        main = page.split("<main", 1)[1]
        assert bool(JAPANESE.search(main)) == (lang == "ja"), f"{link} is not in {lang}"


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("exercise_id", sorted(EXERCISES.exercises))
def test_every_exercise_and_quiz_renders_in_both_languages(course, exercise_id: str, lang: str) -> None:
    exercise = EXERCISES.exercises[exercise_id]
    page = fetch(course, f"/exercises/{exercise_id}", lang)  # quizzes redirect to their page
    main = page.split("<main", 1)[1]
    assert exercise.config.title.get(lang) in main.replace("&#39;", "'").replace("&quot;", '"')
    if lang == "ja":
        assert JAPANESE.search(main), f"{exercise_id} shows no Japanese text"
