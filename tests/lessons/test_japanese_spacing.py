"""Japanese spacing: no space after 。/、, a space between Japanese and ASCII, and line breaks
inside Japanese sentences that render as nothing (not as a stray space)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.content.markdown import render
from grader import ladder
from tests.lessons.japanese_text import ROOT, _quiz_texts, check_messages, documents, strip_code

# Kana and CJK ideographs; ・ (U+30FB) joins ASCII words by design ("FP32・FP16").
JA = r"[\u3040-\u30fa\u30fc-\u30ff\u3400-\u9fff]"
WIDE = r"[\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]"
DOCS = list(documents())
MARKDOWN = sorted([*ROOT.glob("lessons/*/ja.md"), *ROOT.glob("exercises/*/prompt.ja.md"),
                   *ROOT.glob("exercises/*/hints.ja.md")])


def _more_texts() -> Iterator[tuple[str, str]]:
    """Japanese texts beyond documents(): exercise.toml (titles, hint rungs), the grader's
    default hint ladder and the messages of the exercises' own checks."""
    for path in sorted(ROOT.glob("exercises/*/exercise.toml")):
        for where, text in _quiz_texts(tomllib.loads(path.read_text("utf-8")), ""):
            yield f"{path.relative_to(ROOT)}{where}", text
    for name in dir(ladder):
        if not name.startswith("__"):
            yield from _quiz_texts(getattr(ladder, name), f"grader/ladder.py:{name}")
    yield from check_messages()


MORE = list(_more_texts())


def spacing_problems(text: str) -> list[tuple[int, str]]:
    """(line, problem) for the spacing rules of the course's Japanese (code already blanked to ``)."""
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        if re.search(r"[。、][ \t]+\S", line):
            problems.append((number, "a space after 。 or 、"))
        if re.search(rf"{JA}(?:[A-Za-z0-9]|``)|(?:[A-Za-z0-9]|``){JA}", line):
            problems.append((number, "no space between Japanese and ASCII or code"))
        if re.search(rf"\d[ \t]+[%％]|％|%{JA}", line):
            problems.append((number, "% is half-width, after its number without a space, and spaced from Japanese"))
    return problems


_PRE = re.compile(r"<pre\b.*?</pre>", re.S)


def rendered_breaks(html: str) -> list[str]:
    """Line breaks a browser shows as a space where Japanese wants none: between two Japanese
    characters, or after 、/。 (or before them) whatever the other side. Code blocks keep theirs."""
    text = _PRE.sub("", html)
    tag = r"(?:<(?:strong|em|a|code)\b[^>]*>)?"
    return (re.findall(rf"{WIDE}\n{tag}{WIDE}", text)
            + re.findall(r"[、。（「]\n(?!<(?:/|p>|h\d|ul|ol|li|pre|div|table|blockquote|hr))", text)
            + re.findall(r"\S\n[、。）」]", text))


def test_the_rules_catch_what_they_should():
    sample = strip_code("これは文です。 次の文。\nGPUで動く。\n`x`の値\nCPU で動く。FP32・FP16 の図。\n")
    assert spacing_problems(sample) == [
        (1, "a space after 。 or 、"), (2, "no space between Japanese and ASCII or code"),
        (3, "no space between Japanese and ASCII or code")]
    percent = "% is half-width, after its number without a space, and spaced from Japanese"
    assert spacing_problems("約 30 % 減る\n30％ 減る\n30%減る\n約 30% 減る\n") == [
        (1, percent), (2, percent), (3, percent)]
    assert spacing_problems("``の値") and not spacing_problems("`` の値")
    assert rendered_breaks("<p>です。\n次</p>") and not rendered_breaks(render("です。\n次\n").html)
    # Between Japanese and ASCII the break stays, so the reader sees the space the style wants;
    # after 、 or 。 it goes, even before code ("関数を、\n`f`" read "関数を、 f").
    assert render("動きます\nPython で\n").html == "<p>動きます\nPython で</p>\n"
    assert render("関数を、\n`f` と\n").html == "<p>関数を、<code>f</code> と</p>\n"
    assert rendered_breaks("<p>関数を、\n<code>f</code></p>")
    assert not rendered_breaks("<pre><code># 注、\nx = 1\n</code></pre>")


@pytest.mark.parametrize("name,text,markdown", DOCS, ids=[d[0] for d in DOCS])
def test_japanese_spacing(name, text, markdown):
    assert spacing_problems(text) == []


def test_japanese_spacing_of_exercise_settings_and_the_hint_ladder():
    assert len(MORE) > 40  # titles of every exercise, the ladder's rungs, the checks' messages
    assert any(where.startswith("exercises/amp-measure-speed/tests/") for where, _ in MORE)
    assert [(where, spacing_problems(strip_code(text))) for where, text in MORE
            if spacing_problems(strip_code(text))] == []


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(Path(p).relative_to(ROOT)))
def test_no_line_break_shows_as_a_space(path):
    assert rendered_breaks(render(path.read_text("utf-8")).html) == []


def left_asterisks(html: str) -> list[str]:
    """`**` that reached the page as text (code spans and blocks aside): CommonMark does not close
    `**第 1 部（基本）**は`, a run after punctuation and before a kana (the phone screenshot
    of lesson 3 showed the asterisks)."""
    text = re.sub(r"<pre.*?</pre>|<code>.*?</code>", "", html, flags=re.S)
    return [text[max(0, m.start() - 20):m.end() + 20] for m in re.finditer(r"\*\*", text)]


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_bold_mark_shows_as_text(path):
    assert left_asterisks(render(path.read_text("utf-8")).html) == []
