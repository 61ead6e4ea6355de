"""Line breaks between Japanese characters vanish when rendered, instead of showing as a space."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

# Kana, CJK ideographs, CJK punctuation (。、「」) and full-width forms (（）：！？).
_WIDE = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
# Japanese punctuation carries its own spacing: no space after 、 or （ nor before ） or 。,
# whatever is on the other side (ASCII, `code`).
_PUNCTUATION = re.compile(r"[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]")


def _edge(tokens: list[Token], start: int, step: int) -> str:
    """The nearest character of text from tokens[start] on, walking by step (+1 or -1) past
    emphasis and link marks (and the empty text they leave); '' when code, an image or the
    line's end comes first."""
    i = start
    while 0 <= i < len(tokens):
        token = tokens[i]
        if token.type == "text" and token.content:
            return token.content[0] if step > 0 else token.content[-1]
        if token.type != "text" and not token.type.endswith(("_open", "_close")):
            return ""
        i += step
    return ""


def _drop_breaks(state: StateCore) -> None:
    # A browser shows a source line break as a space. Japanese has no spaces between words, so
    # "です。\n次" would read "です。 次". Between a Japanese letter and ASCII (a word, `code`)
    # the break stays: the course writes a space there ("CPU で"); next to 、 or 。 it goes.
    for block in state.tokens:
        children = block.children
        if block.type != "inline" or not children:
            continue
        for i, token in enumerate(children):
            if token.type != "softbreak":
                continue
            before, after = _edge(children, i - 1, -1), _edge(children, i + 1, 1)
            if (before and after and _WIDE.match(before) and _WIDE.match(after)) \
                    or _PUNCTUATION.match(before or " ") or _PUNCTUATION.match(after or " "):
                token.type, token.content = "text", ""


def cjk_breaks_plugin(md: MarkdownIt) -> None:
    md.core.ruler.push("cjk_breaks", _drop_breaks)
