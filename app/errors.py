"""Error pages: JSON under /api/, a readable HTML page everywhere else, never a bare 500."""

from __future__ import annotations

import logging

from flask import Flask, jsonify, render_template, request
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException, InternalServerError
from werkzeug.wrappers import Response

log = logging.getLogger(__name__)


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
