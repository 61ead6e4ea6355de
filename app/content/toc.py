"""A lesson's table of contents: the h2 and h3 headings of its rendered HTML (the lesson page and hints link them)."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

# Headings as app/content/markdown.py renders them: <h2 id="...">text <a class="header-anchor"...
_HEADING = re.compile(r'<h([23]) id="([^"]+)">(.*?)\s*<a class="header-anchor"', re.S)
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class TocEntry:
    level: int
    anchor: str
    text: str


def table_of_contents(body: str) -> list[TocEntry]:
    """The h2 and h3 headings of rendered lesson HTML, in order."""
    return [TocEntry(int(level), anchor, html.unescape(_TAG.sub("", text)).strip())
            for level, anchor, text in _HEADING.findall(body)]
