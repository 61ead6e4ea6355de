"""WCAG AA contrast of the code-highlighting palette and the site's colours, light and dark."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.content.pygments_css import AA, TARGET, contrast, stylesheet

SITE_CSS = Path(__file__).resolve().parents[3] / "app" / "static" / "css" / "site.css"


def _sections(css: str) -> dict[str, str]:
    light, _, dark = css.partition("@media (prefers-color-scheme: dark)")
    return {"light": light, "dark": dark}


def _pairs(section: str) -> list[tuple[str, str, str]]:
    """(rule, text colour, background) for every coloured token rule of one scheme."""
    page = re.search(r"\.highlight \{ background: (#[0-9a-fA-F]{3,6})", section).group(1)
    found = []
    for line in section.splitlines():
        colour = re.search(r"(?<![-\w])color: (#[0-9a-fA-F]{3,6})", line)
        if not colour:
            continue
        own = re.search(r"background-color: (#[0-9a-fA-F]{3,6})", line)
        found.append((line.strip(), colour.group(1), own.group(1) if own else page))
    return found


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_token_colour_reaches_aa_on_its_background(scheme):
    css = TARGET.read_text(encoding="utf-8")
    pairs = _pairs(_sections(css)[scheme])
    assert len(pairs) > 20  # comments, numbers, strings, keywords...
    low = [f"{rule} ({contrast(fg, bg):.2f}:1)" for rule, fg, bg in pairs if contrast(fg, bg) < AA]
    assert low == []


def test_the_committed_stylesheet_is_the_generated_one():
    assert TARGET.read_text(encoding="utf-8") == stylesheet()


def _variables(block: str) -> dict[str, str]:
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", block))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_site_text_colours_reach_aa(scheme):
    css = SITE_CSS.read_text(encoding="utf-8")
    light = _variables(css[css.index(":root {"):css.index("}", css.index(":root {"))])
    dark_start = css.index("@media (prefers-color-scheme: dark)")
    colours = light if scheme == "light" else {
        **light, **_variables(css[dark_start:css.index("}\n}", dark_start)])}
    pairs = [("ink", "paper"), ("ink", "wash"), ("muted", "paper"), ("muted", "wash"),
             ("accent", "paper"), ("accent", "wash"), ("accent-ink", "accent"),
             ("pass", "pass-wash"), ("fail", "fail-wash"), ("error", "error-wash"),
             ("skip", "paper"), ("ink", "code-wash"), ("accent", "info-wash")]
    low = [f"{fg} on {bg}: {contrast(colours[fg], colours[bg]):.2f}"
           for fg, bg in pairs if contrast(colours[fg], colours[bg]) < AA]
    assert low == []
