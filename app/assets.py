"""Static assets: content-hashed URLs cached for a year (immutable), and compressed (flask-compress)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from flask import Flask, request
from flask_compress import Compress
from werkzeug.wrappers import Response

YEAR = 365 * 24 * 3600
_hashes: dict[tuple[str, int], str] = {}


def fingerprint(root: str, filename: str) -> str | None:
    """The first 12 hex digits of the file's SHA-256 (cached per modification time), or None."""
    path = Path(root) / filename
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return None
    key = (str(path), mtime)
    if key not in _hashes:
        _hashes[key] = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    return _hashes[key]


def init_app(app: Flask) -> None:
    compress = Compress()
    # Only static files are compressed: HTML pages carry CSRF tokens next to text a visitor
    # can influence, which compression would expose to a BREACH-style attack.
    app.config.setdefault("COMPRESS_REGISTER", False)
    app.config.setdefault("COMPRESS_MIMETYPES", [
        "text/css", "text/javascript", "application/javascript", "application/json",
        "image/svg+xml"])
    # Static files are streamed, and flask-compress leaves gzip out of its streaming choices by
    # default: a client that accepts only gzip got the 474 KB editor bundle uncompressed.
    app.config.setdefault("COMPRESS_ALGORITHM_STREAMING", ["zstd", "br", "gzip", "deflate"])
    compress.init_app(app)

    @app.url_defaults
    def _versioned(endpoint: str, values: dict[str, Any]) -> None:
        # url_for('static', filename=...) gains ?v=<content hash>: a changed file gets a new URL.
        if endpoint == "static" and "v" not in values and app.static_folder:
            digest = fingerprint(app.static_folder, values.get("filename", ""))
            if digest:
                values["v"] = digest

    @app.after_request
    def _cache_and_compress(response: Response) -> Response:
        if request.endpoint != "static":
            return response
        filename = (request.view_args or {}).get("filename", "")
        wanted = request.args.get("v")
        if (wanted and response.status_code == 200 and app.static_folder
                and wanted == fingerprint(app.static_folder, filename)):
            # This URL names these exact bytes: browsers may keep them without asking again.
            response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
        return compress.after_request(response)
