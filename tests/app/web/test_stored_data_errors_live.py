"""A stored results document with NaN or Infinity in it is data to read around, never an outage (real gunicorn)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.app.live_server import GOOD, Browser, LiveServer

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path: Path):
    live = LiveServer(tmp_path, ["ada@example.org"], instructors=["teach@example.org"])
    yield live
    live.close()


def poison(server: LiveServer, submission_id: str) -> None:
    """What no write path stores today, but a row may hold: NaN and Infinity (Python's json writes them)."""
    con = sqlite3.connect(server.folder / "live.db")
    with con:
        (text,) = con.execute("SELECT result FROM submissions WHERE id = ?", (submission_id,)).fetchone()
        doc = json.loads(text)
        doc["duration_s"] = float("nan")
        doc["score"] = float("inf")
        con.execute("UPDATE submissions SET result = ? WHERE id = ?", (json.dumps(doc), submission_id))
    con.close()


def test_one_row_with_nan_keeps_every_page_up_and_is_logged_by_its_id(server: LiveServer) -> None:
    ada = Browser(server, "192.0.2.9")
    assert ada.log_in("ada@example.org")[0] == 302
    graded = []
    for _ in range(2):
        status, body = ada.submit(GOOD)
        assert status == 202, body
        ada.result(body["id"], 60)
        graded.append(body["id"])
    poison(server, graded[0])

    teacher = Browser(server, "192.0.2.10")
    assert teacher.log_in("teach@example.org")[0] == 302
    for page in ("/instructor/", "/instructor/exercises/add-numbers", "/instructor/learners"):
        status, html, _ = teacher.call("GET", page)
        assert status == 200, (page, status, html[:300])
    status, csv, _ = teacher.call("GET", "/instructor/export.csv")
    lines = csv.decode("utf-8").splitlines()
    assert status == 200 and lines[0].startswith("email,") and any("ada@example.org" in line for line in lines)
    assert lines[-1].count(",") == lines[0].count(","), "the export ended mid-row"
    for page in ("/progress", "/exercises/add-numbers/history", f"/submissions/{graded[0]}",
                 f"/submissions/{graded[1]}"):
        status, html, _ = ada.call("GET", page)
        assert status == 200, (page, status, html[:300])
    status, body = ada.json("GET", f"/api/submissions/{graded[0]}")
    assert status == 200 and body["result"]["score"] is None, body
    assert graded[0] in server.logged(), "the row with the bad document is named in the log"
