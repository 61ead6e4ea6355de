"""Fixtures for browser tests: a real server on a free port with a temporary database."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from app import create_app
from app.extensions import db

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
BUNDLE = REPO / "app" / "static" / "dist" / "editor.js"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run",
]


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install -y chromium)"
    if not BUNDLE.is_file():
        return f"{BUNDLE.relative_to(REPO)} is missing (npm ci && npm run build)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    reason = _missing()
    if reason:
        pytest.skip(f"browser test skipped: {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def live_server(live_app: tuple[object, str]) -> str:
    """The real app with the repository's lessons and exercises, served over HTTP."""
    return live_app[1]


@pytest.fixture
def live_app(tmp_path: Path) -> Iterator[tuple[object, str]]:
    """The served app and its URL, for tests that also prepare data (accounts, submissions)."""
    app = create_app({
        "SECRET_KEY": "browser-test",
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'browser.db'}",
        "GRADER_SANDBOX": os.environ.get("GRADER_SANDBOX", "local"),
    })
    with app.app_context():
        db.create_all()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=10)
    app.extensions["grading_queue"].shutdown(wait=True)
