"""Error pages: JSON under /api/, a readable HTML page everywhere else, never a bare 500."""

from __future__ import annotations

import logging

from flask import Flask, jsonify, render_template, request
from flask_babel import gettext as _
from markupsafe import escape
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy import text
from sqlalchemy.exc import InterfaceError, OperationalError
from werkzeug.exceptions import HTTPException, InternalServerError
from werkzeug.wrappers import Response

from app.extensions import db

log = logging.getLogger(__name__)

# The database or Redis did not answer: the request may succeed in a moment, so it is a 503
# with Retry-After, not a 500 (and, being >= 500, it never counts against a rate limit).
UNREACHABLE = (OperationalError, InterfaceError, RedisConnectionError, RedisTimeoutError)
RETRY_AFTER_S = 30


def _messages() -> dict[int, str]:
    return {
        400: _("The request could not be understood."),
        403: _("You do not have access to this page."),
        404: _("There is nothing at this address."),
        405: _("This address does not accept that kind of request."),
        413: _("The request is too large."),
        429: _("Too many requests in a short time. Please wait a minute, then try again."),
        500: _("Something went wrong on our side. Please try again in a moment."),
    }


def json_error(status: int, error: str, message: str) -> tuple[Response, int]:
    """The API's error body: a stable machine-readable name and a sentence for people."""
    return jsonify({"error": error, "message": message}), status


def unavailable(error: str, message: str) -> tuple[Response | str, int]:
    """503 with Retry-After, as JSON under /api/ and as a readable page elsewhere."""
    if request.path.startswith("/api/"):
        response, status = json_error(503, error, message)
    else:
        try:
            page = render_template("errors/page.html", status=503, message=message)
        except UNREACHABLE:  # the layout asks for the logged-in account, which needs the database
            page = f"<!doctype html><title>503</title><h1>503</h1><p>{escape(message)}</p>"
        response, status = Response(page, mimetype="text/html"), 503
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response, status


def _permanent(exc: Exception) -> bool:
    """An error of the stored data, not of the connection: retrying will never help."""
    # SQLite's JSON functions over a document that is not JSON (NaN, Infinity): an
    # OperationalError like a lost connection, but about one row, for good.
    return isinstance(exc, OperationalError) and "malformed JSON" in str(exc)


def _bad_rows() -> str:
    """The rows whose stored JSON the database cannot read (SQLite), for the log line."""
    found = []
    try:
        db.session.rollback()
        if db.engine.dialect.name != "sqlite":
            return "none found"
        for table in ("submissions", "runs", "quiz_attempts"):
            # Only this module's table names: nothing from a request.
            ids = db.session.execute(text(f"SELECT id FROM {table} WHERE NOT json_valid(result) LIMIT 10")).scalars()  # noqa: S608
            found += [f"{table} {row_id}" for row_id in ids]
        db.session.rollback()
    except Exception:  # noqa: BLE001 -- the log line is the goal; the 500 is answered anyway
        log.warning("could not look for the rows with unreadable JSON", exc_info=True)
    return ", ".join(found) or "none found"


def _handle_data_error(exc: Exception) -> tuple[Response | str, int]:
    """A 500 with a log line naming the rows: an outage's 503 would hide it from the operator."""
    log.error("stored data error on %s: %s; rows whose JSON cannot be read: %s", request.path,
              str(exc).splitlines()[0], _bad_rows())
    return _handle(InternalServerError())


def _handle_unreachable(exc: Exception) -> tuple[Response | str, int]:
    if _permanent(exc):
        return _handle_data_error(exc)
    log.warning("%s on %s: %s", type(exc).__name__, request.path, str(exc).splitlines()[0] if str(exc) else "")
    try:
        db.session.rollback()
    except UNREACHABLE:
        pass  # the connection went with the server; the pool checks the next one before use
    message = _("Part of the platform is unavailable for a moment. Nothing you saved is lost; "
                "wait a minute, then try again.")
    return unavailable("temporarily_unavailable", message)


def _handle(exc: HTTPException) -> tuple[Response | str, int]:
    status = exc.code or 500
    message = _messages().get(status, exc.description or "")
    if request.path.startswith("/api/"):
        name = (exc.name or "error").lower().replace(" ", "_")
        return json_error(status, name, message)
    return render_template("errors/page.html", status=status, message=message), status


def _handle_unexpected(exc: Exception) -> tuple[Response | str, int]:
    log.exception("unhandled error on %s", request.path)
    return _handle(InternalServerError())


def init_app(app: Flask) -> None:
    app.register_error_handler(HTTPException, _handle)
    app.register_error_handler(Exception, _handle_unexpected)
    for kind in UNREACHABLE:
        app.register_error_handler(kind, _handle_unreachable)
