"""Light or dark: the header toggle's choice, read from its cookie so the page is drawn in it."""

from __future__ import annotations

from flask import Flask, request

COOKIE = "theme"  # written by app/static/src/theme.js
CHOICES = ("light", "dark")


def chosen_theme() -> str | None:
    """The learner's choice, or None to follow the system's preference (CSS media query)."""
    value = request.cookies.get(COOKIE)
    return value if value in CHOICES else None


def init_app(app: Flask) -> None:
    @app.context_processor
    def _theme_context() -> dict[str, object]:
        # On <html data-theme> before the first paint: no flash of the other theme on load.
        return {"chosen_theme": chosen_theme()}
