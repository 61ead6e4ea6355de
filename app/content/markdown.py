"""Markdown to safe HTML: CommonMark with tables, front matter, admonitions and Pygments."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markupsafe import Markup
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from app.content.cjk_breaks import cjk_breaks_plugin

_FORMATTER = HtmlFormatter(nowrap=True)


def _highlight(code: str, lang: str, _attrs: str) -> str:
    """Colour a fenced block; markdown-it keeps output that starts with <pre> as it is."""
    name = lang.strip().split()[0] if lang.strip() else ""
    try:
        lexer = get_lexer_by_name(name) if name else None
    except ClassNotFound:
        lexer = None
    body = highlight(code, lexer, _FORMATTER) if lexer else escapeHtml(code)
    css_lang = f' data-lang="{escapeHtml(name)}"' if name else ""
    return f'<pre class="highlight"{css_lang}><code>{body}</code></pre>\n'


def make_parser() -> MarkdownIt:
    # html=False: any raw HTML in a lesson or prompt is shown as text, never rendered.
    md = MarkdownIt("commonmark", {"html": False, "highlight": _highlight})
    md.enable("table")
    md.use(front_matter_plugin).use(admon_plugin)
    # Section headings get ids and a "#" link, so a lesson's sections can be linked to and
    # listed in its table of contents (app/lessons/routes.py reads the ids back).
    md.use(anchors_plugin, min_level=2, max_level=3, permalink=True, permalinkSymbol="#")
    md.use(cjk_breaks_plugin)  # Japanese lines joined without the space a line break would show
    return md


@dataclass(frozen=True)
class Rendered:
    """A rendered Markdown document: its front matter and its HTML body."""

    meta: dict[str, Any]
    html: str


def render(text: str) -> Rendered:
    """Render Markdown text; the front matter (YAML) is returned apart, not shown."""
    md = make_parser()
    env: dict[str, Any] = {}
    tokens = md.parse(text, env)
    meta: dict[str, Any] = {}
    for token in tokens:
        if token.type == "front_matter":
            loaded = yaml.safe_load(token.content) or {}
            meta = loaded if isinstance(loaded, dict) else {}
            break
    return Rendered(meta=meta, html=md.renderer.render(tokens, md.options, env))


@dataclass
class RenderCache:
    """Rendered files keyed by path and modification time, so edits show without a restart."""

    _entries: dict[Path, tuple[int, Rendered]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, path: Path) -> Rendered:
        path = Path(path)
        mtime = path.stat().st_mtime_ns
        with self._lock:
            hit = self._entries.get(path)
        if hit and hit[0] == mtime:
            return hit[1]
        rendered = render(path.read_text(encoding="utf-8"))
        with self._lock:
            self._entries[path] = (mtime, rendered)
        return rendered


@lru_cache(maxsize=4096)
def inline_markdown(source: str) -> Markup:
    """`code` and *emphasis* in question text; raw HTML is shown as text, never rendered."""
    html = MarkdownIt("commonmark", {"html": False}).renderInline(source)
    return Markup(html)  # noqa: S704 -- markdown-it escaped everything with html=False
