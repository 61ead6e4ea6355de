"""Lesson 3's core reads in 15 minutes: at most 2,600 words of prose, and at most 15 estimated
minutes in English and in Japanese.

"Prose" is what app/content/reading.py counts: the Markdown without its front matter, its fenced
code blocks and its images' alt texts; an English word is a run of non-space characters with a
letter or a digit in it (table rules and list dashes are not words). Japanese prose is counted in
kana and kanji, read at 500 a minute, plus its Latin words at the English rate of 200 a minute;
code lines are read at 40 a minute. The core is the lesson from its top to the heading of its
second part, as its front matter declares.
"""

from __future__ import annotations

import pytest

from app.content.lessons import lesson_parts
from app.content.markdown import render
from app.content.reading import reading, split_at_headings
from tests.lessons.lesson_blocks import LESSONS

LESSON = LESSONS / "03-mixed-precision"
CORE_WORDS = 2600
CORE_MINUTES = 15


def _parts(lang: str):
    path = LESSON / f"{lang}.md"
    return lesson_parts(render(path.read_text(encoding="utf-8")).meta.get("parts"), path)


def _core(lang: str) -> str:
    text = (LESSON / f"{lang}.md").read_text(encoding="utf-8")
    second = _parts(lang)[1].first
    return split_at_headings(text, [_parts(lang)[0].first, second])[0]


def test_the_counts_follow_the_definition():
    text = ("---\ntitle: words in here do not count\n---\n# A title\n\nTwo words, | --- | 3x.\n\n"
            "```python\nprint('code is not prose')\n\nx = 1\n```\n\n![alt text is left out](a.svg)\n"
            "日本語の文、float16 です。\n")
    counted = reading(text)
    assert (counted.words, counted.ja_chars, counted.code_lines) == (7, 7, 2)
    # A, title, Two, words,, 3x., float16, of the last line; 日本語の文です
    assert reading("word " * 200).minutes == 1 and reading("word " * 2900).minutes == 15
    assert reading("あ" * 5000).minutes == 10


def test_split_at_headings_starts_at_the_top_and_ignores_code():
    text = "intro\n## One\na\n```\n## Two\n```\n## Two\nb\n## End\nc\n"
    assert split_at_headings(text, ["One", "Two"], "End") == ["intro\n## One\na\n```\n## Two\n```", "## Two\nb"]
    with pytest.raises(ValueError, match="## Three"):
        split_at_headings(text, ["One", "Three"])


def test_lesson_3_has_a_core_and_two_optional_parts_in_both_languages():
    en, ja = _parts("en"), _parts("ja")
    assert len(en) == len(ja) == 3
    assert all("optional" in part.title for part in en[1:])
    assert all("任意" in part.title for part in ja[1:])


def test_lesson_3_core_is_at_most_2600_words_of_prose():
    assert reading(_core("en")).words <= CORE_WORDS


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_lesson_3_core_reads_in_15_minutes(lang):
    assert reading(_core(lang)).minutes <= CORE_MINUTES
    assert _parts(lang)[0].minutes == reading(_core(lang)).minutes
