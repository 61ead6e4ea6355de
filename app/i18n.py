"""Interface language: English or Japanese, chosen by a cookie, else by the browser."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import urlsplit

from flask import Flask, current_app, redirect, request, url_for
from flask_babel import format_datetime, get_locale
from markupsafe import Markup
from werkzeug.wrappers import Response

from app.extensions import babel

COOKIE = "lang"
COOKIE_MAX_AGE = 365 * 24 * 3600
LANGUAGE_NAMES = {"en": "English", "ja": "日本語"}


def select_locale() -> str:
    languages = current_app.config["LANGUAGES"]
    chosen = request.cookies.get(COOKIE)
    if chosen in languages:
        return chosen
    return request.accept_languages.best_match(languages) or "en"


def current_lang() -> str:
    """The two-letter code of the language the page is shown in."""
    locale = get_locale()
    return locale.language if locale is not None else "en"


def safe_next(target: str | None) -> str:
    """The page to go back to, when it is a path on this site; else the course page."""
    # Only a path on this site: an absolute URL here would make an open redirect. Control
    # characters (CR, LF, NUL...) cannot go into a Location header: werkzeug would raise.
    if target and not any(ord(char) < 32 or ord(char) == 127 for char in target):
        try:
            parts = urlsplit(target)
        except ValueError:  # "//[" is an unterminated IPv6 address to urlsplit
            return url_for("lessons.course")
        if not parts.scheme and not parts.netloc and target.startswith("/") \
                and not target.startswith("//") and "\\" not in target:
            return target
    return url_for("lessons.course")


def set_language(code: str) -> Response:
    """Remember the chosen language in a cookie and go back to the page the learner was on."""
    response = redirect(safe_next(request.args.get("next")))
    if code in current_app.config["LANGUAGES"]:
        response.set_cookie(
            COOKIE, code, max_age=COOKIE_MAX_AGE, httponly=True, samesite="Lax",
            secure=request.is_secure,
        )
    return response


def local_time(moment: datetime | None) -> Markup:
    """A time as <time>: UTC with its zone named on the server; the browser rewrites it in the
    reader's own zone (app/static/src/times.js). A Tokyo reader once read 13:56 for 22:56."""
    if moment is None:
        return Markup("")
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    text = f"{format_datetime(moment, 'medium', rebase=False)} UTC"
    return Markup('<time datetime="{}" data-local>{}</time>').format(moment.isoformat(), text)


def init_app(app: Flask) -> None:
    babel.init_app(app, locale_selector=select_locale)
    app.add_url_rule("/lang/<code>", "set_language", set_language)

    app.add_template_filter(local_time, "local_time")

    @app.context_processor
    def _language_context() -> dict[str, object]:
        return {"current_lang": current_lang(), "language_names": LANGUAGE_NAMES}
