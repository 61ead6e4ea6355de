"""Cross-origin protection for the cookie-authenticated JSON API (the forms carry CSRF tokens).

The API refuses anything but application/json, which a cross-site page can only send after a
CORS preflight that this site never grants; the session cookie is SameSite=Lax, so a
cross-site POST carries no session at all. On top of both, every state-changing request whose
browser says it comes from another origin (Sec-Fetch-Site, else Origin) is refused here, the
check Go's net/http CrossOriginProtection makes. Requests without either header come from
non-browser clients, which cannot hold a victim's cookie.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, request
from flask_babel import gettext as _
from werkzeug.exceptions import Forbidden

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class CrossOriginRequest(Forbidden):
    """A state-changing request sent by a page of another origin."""


def is_cross_origin() -> bool:
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:
        return fetch_site not in ("same-origin", "none")
    origin = request.headers.get("Origin")
    if origin is None or origin == "null":
        return origin == "null"  # "null": a sandboxed frame or a data: page, never ours
    return urlsplit(origin).netloc != request.host


def refuse_cross_origin() -> None:
    if request.method not in SAFE_METHODS and is_cross_origin():
        raise CrossOriginRequest(_("Requests from other sites are refused."))


def init_app(app: Flask) -> None:
    app.before_request(refuse_cross_origin)
