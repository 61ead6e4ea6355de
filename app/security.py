"""Security headers, HSTS and Secure cookies over HTTPS, and trusting a reverse proxy's headers."""

from __future__ import annotations

import secrets

from flask import Flask, abort, current_app, g, request
from flask.sessions import SecureCookieSessionInterface
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.wrappers import Response


class SessionInterface(SecureCookieSessionInterface):
    """The signed-cookie session, with the Secure flag on whenever the request came over HTTPS."""

    def get_cookie_secure(self, app: Flask) -> bool:
        # request.is_secure is true behind a TLS proxy too once TRUSTED_PROXIES is set.
        return bool(app.config["SESSION_COOKIE_SECURE"] or request.is_secure)


def csp_nonce() -> str:
    """A nonce for this response; CodeMirror uses it for the styles it injects."""
    if "csp_nonce" not in g:
        g.csp_nonce = secrets.token_urlsafe(16)
    nonce: str = g.csp_nonce
    return nonce


def _policy(nonce: str) -> str:
    # Scripts only from this origin: no inline script, no CDN, no eval.
    return "; ".join([
        "default-src 'self'",
        "script-src 'self'",
        f"style-src 'self' 'nonce-{nonce}'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ])


def add_headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = _policy(csp_nonce())
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "same-origin"
    max_age = current_app.config["HSTS_MAX_AGE"]
    if request.is_secure and max_age:
        # Only over HTTPS: a browser ignores the header on HTTP, and a test server has no TLS.
        response.headers["Strict-Transport-Security"] = f"max-age={max_age}"
    return response


def refuse_nul() -> None:
    """A NUL in the path or the query is never a real address, and PostgreSQL refuses it in a
    query (a 500 where SQLite would answer): 404 for a path, 400 for a query, before any view."""
    if "\x00" in request.path:
        abort(404)
    if any("\x00" in key or "\x00" in value for key, value in request.args.items(multi=True)):
        abort(400)


def init_app(app: Flask) -> None:
    proxies = app.config["TRUSTED_PROXIES"]
    if proxies:
        # The client's address (rate limits), scheme (Secure cookies, HSTS) and host (CSRF
        # referrer check, cross-origin check) come from that many proxies' X-Forwarded-* headers.
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)
    app.session_interface = SessionInterface()
    app.before_request(refuse_nul)
    app.after_request(add_headers)
    app.jinja_env.globals["csp_nonce"] = csp_nonce
