"""Reading time of a lesson's parts, counted from the Markdown source: prose words and code lines.

Prose is the source without its front matter, its fenced code blocks and its images' alt texts
(a screen reader reads those in place of the figure the page shows). In English prose a word is
a run of non-space characters with at least one letter or digit, so table rules ("|---|") and
list dashes are not words. Japanese prose is counted in characters: every kana and kanji, read
at JA_CHARS_PER_MINUTE, plus the Latin words and numbers in it ("float16", "`autocast`") at the
English rate. Code lines (non-blank lines of fenced blocks) are counted apart: a reader reads
the code shown, but more slowly than prose and faster than writing it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

WORDS_PER_MINUTE = 200      # English technical prose, read to understand it
JA_CHARS_PER_MINUTE = 500   # Japanese technical prose: kana and kanji per minute
CODE_LINES_PER_MINUTE = 40  # reading (not typing) a code example: 1.5 seconds a line

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[^\n]*$", re.S | re.M)
_IMAGE_ALT = re.compile(r"!\[[^\]]*\]")
_WORD = re.compile(r"\S*[A-Za-z0-9]\S*")
_KANA_KANJI = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class Reading:
    """What one stretch of a lesson asks of a reader."""

    words: int       # Latin-script words of prose
    ja_chars: int    # kana and kanji of prose
    code_lines: int

    @property
    def minutes(self) -> int:
        """Estimated minutes, rounded to the nearest minute (at least 1)."""
        exact = (self.words / WORDS_PER_MINUTE + self.ja_chars / JA_CHARS_PER_MINUTE
                 + self.code_lines / CODE_LINES_PER_MINUTE)
        return max(1, math.floor(exact + 0.5))


def prose(markdown: str) -> str:
    """The Markdown without front matter, fenced code blocks and image alt texts."""
    text = _FRONT_MATTER.sub("", markdown)
    text = _FENCE.sub("", text)
    return _IMAGE_ALT.sub("", text)


def reading(markdown: str) -> Reading:
    """Count the prose words, Japanese characters and code lines of a Markdown text."""
    text = prose(markdown)
    code = sum(1 for block in _FENCE.findall(_FRONT_MATTER.sub("", markdown))
               for line in block.splitlines() if line.strip())
    return Reading(words=len(_WORD.findall(_KANA_KANJI.sub(" ", text))),
                   ja_chars=len(_KANA_KANJI.findall(text)), code_lines=code)


def split_at_headings(markdown: str, headings: list[str], end: str | None = None) -> list[str]:
    """The stretches of `markdown` that start at each `## heading` line (in order) and run to the
    next one; the first starts at the top instead (a lesson's introduction belongs to its first
    part), and the last runs to the `## end` line, or to the end of the text. A heading that is
    not in the text raises ValueError, naming it."""
    lines = markdown.split("\n")
    outside = _lines_outside_code(lines)
    starts = []
    for heading in [*headings, *([end] if end else [])]:
        found = [i for i in outside if lines[i].strip() == f"## {heading}"]
        if not found:
            raise ValueError(f"no '## {heading}' heading in the lesson")
        starts.append(found[0])
    if not end:
        starts.append(len(lines))
    starts[0] = 0
    return ["\n".join(lines[a:b]) for a, b in zip(starts, starts[1:], strict=False)]


def _lines_outside_code(lines: list[str]) -> list[int]:
    """Indices of the lines not inside a fenced code block (a `## ` in code is no heading)."""
    kept, fenced = [], False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            kept.append(i)
    return kept
