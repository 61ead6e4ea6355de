"""The light/dark choice: drawn by the server from its cookie, one dark palette in two places."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.content.pygments_css import CHOSEN_DARK, SYSTEM_DARK

SITE_CSS = Path(__file__).resolve().parents[3] / "app" / "static" / "css" / "site.css"


def _block(css: str, opener: str) -> dict[str, str]:
    start = css.index(opener) + len(opener)
    return dict(re.findall(r"--([\w-]+):\s*([^;]+);", css[start:css.index("}", start)]))


def test_the_chosen_dark_is_the_system_dark():
    css = SITE_CSS.read_text(encoding="utf-8")
    system = _block(css, f"@media (prefers-color-scheme: dark) {{\n  {SYSTEM_DARK} {{")
    chosen = _block(css, f"\n{CHOSEN_DARK} {{")
    assert len(system) >= 18 and system == chosen
    # Every colour the dark theme sets exists in the light one (no variable left unset in light).
    light = _block(css, ":root {")
    assert set(system) <= set(light)


@pytest.mark.parametrize("cookie,attribute", [
    (None, None), ("dark", "dark"), ("light", "light"), ("purple", None), ('"><script>', None)])
def test_the_page_is_drawn_in_the_chosen_theme(client, cookie, attribute):
    if cookie is not None:
        client.set_cookie("theme", cookie)
    html = client.get("/").get_data(as_text=True)
    root = re.search(r"<html[^>]*>", html).group(0)
    if attribute is None:
        assert "data-theme" not in root
    else:
        assert f'data-theme="{attribute}"' in root
    button = re.search(r'<button[^>]*id="theme-toggle"[^>]*>', html, re.S).group(0)
    assert f'aria-pressed="{"true" if attribute == "dark" else "false"}"' in button
