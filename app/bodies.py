"""Reading JSON request bodies: JSON objects only, shallow, code as bounded UTF-8 text without NUL."""

from __future__ import annotations

import json
from typing import Any

from flask import current_app, request
from flask_babel import gettext as _

# No endpoint takes anything deeper than {"answers": {"q": [..]}}; a deeper body is refused
# before anything walks it, so no recursion (json, SQLAlchemy's JSON type) can overflow.
MAX_DEPTH = 8


class BadBody(Exception):
    """A request body the API refuses, with the HTTP status and a message for people."""

    def __init__(self, status: int, error: str, message: str):
        super().__init__(message)
        self.status, self.error, self.message = status, error, message


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when lists and objects nest deeper than limit (an explicit stack: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def read_body() -> dict[str, Any]:
    if not request.is_json:
        raise BadBody(400, "not_json", _("Send the code as JSON (Content-Type: application/json)."))
    try:
        text = request.get_data(cache=False).decode("utf-8")
    except UnicodeDecodeError:
        raise BadBody(400, "not_utf8", _("The request body is not valid UTF-8.")) from None
    try:
        body = json.loads(text)
    except RecursionError:  # the C parser stops cleanly at the interpreter's recursion limit
        raise BadBody(400, "too_deep", _("The request body nests lists or objects too deeply.")) \
            from None
    except ValueError:  # also integers of more than 4300 digits
        raise BadBody(400, "not_json", _("The request body is not valid JSON.")) from None
    if too_deep(body):
        raise BadBody(400, "too_deep", _("The request body nests lists or objects too deeply."))
    if not isinstance(body, dict):
        raise BadBody(400, "not_json", _("The request body must be a JSON object."))
    return body


def read_code(body: dict[str, Any]) -> str:
    code = body.get("code")
    if not isinstance(code, str):
        raise BadBody(400, "bad_code", _("The field 'code' is missing or is not a string."))
    try:
        size = len(code.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate such as "\ud800" from a JSON escape
        raise BadBody(400, "not_utf8", _("The code is not valid Unicode text.")) from None
    limit = current_app.config["MAX_CODE_BYTES"]
    if size > limit:
        raise BadBody(
            413, "code_too_large",
            _("The code is %(size)d bytes; the limit is %(limit)d bytes.", size=size, limit=limit),
        )
    if "\x00" in code:  # PostgreSQL text columns cannot hold NUL
        raise BadBody(400, "bad_code", _("The code contains a NUL character."))
    return code
