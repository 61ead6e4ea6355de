"""SQLite in WAL mode for every process that opens it: readers never wait for a writer, nor it for them.

In the default rollback journal, a commit locks readers out while it writes, and a reader
that meets the lock sleeps in SQLite's busy handler (1 ms, 2 ms, ... up to 100 ms a try):
30 learners' autosaves (a commit each every 1.5 s) stalled page views that only read, the
course page among them. With a write-ahead log a reader sees the last commit and goes on.
The web process and Celery workers on one host share the file the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import event

from app.extensions import db

if TYPE_CHECKING:
    from flask import Flask


def init_app(app: Flask) -> None:
    """Switch each new SQLite connection of this app to WAL (a no-op once the file is in WAL)."""
    if not str(app.config.get("SQLALCHEMY_DATABASE_URI", "")).startswith("sqlite"):
        return

    def wal(dbapi_connection: Any, _: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    with app.app_context():
        event.listen(db.engine, "connect", wal)
