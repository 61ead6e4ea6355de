"""POST /api/exercises/<id>/run: a Run is a job (202), polled at /api/runs/<id>; bad input is a 4xx."""

from __future__ import annotations

import time

import pytest

from app.extensions import db
from app.models import Run, Submission

URL = "/api/exercises/add-numbers/run"
JA = {"Accept-Language": "ja"}


def count(app, model=Submission) -> int:
    with app.app_context():
        return db.session.query(model).count()


def wait_for_run(client, run_id: str, timeout: float = 300.0) -> dict:
    """Poll like the page does; the timeout only caps a Run that never ends."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(f"/api/runs/{run_id}").get_json()
        if body["status"] == "done":
            return body
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} did not end within {timeout}s")


@pytest.mark.slow
def test_run_executes_the_top_level_for_real_off_the_request_and_stores_no_submission(app, client,
                                                                                    monkeypatch):
    monkeypatch.setenv("GRADER_POOL_SIZE", "0")  # a fresh sandbox: no pool left in this process
    code = "def add(a, b):\n    return a + b\n\nprint('two and three:', add(2, 3))\n"
    response = client.post(URL, json={"code": code})
    assert response.status_code == 202, response.get_data(as_text=True)
    queued = response.get_json()
    assert queued["status"] in ("queued", "running") and queued["result"] is None
    assert response.headers["Location"] == f"/api/runs/{queued['id']}"
    result = wait_for_run(client, queued["id"])["result"]
    assert set(result) == {"status", "output", "error", "duration_s"}
    assert result["status"] == "ok" and result["error"] is None
    assert result["output"] == "two and three: 5\n"
    assert count(app) == 0  # a Run is not a submission

    broken = client.post(URL, json={"code": "print('before')\nx = 1 / 0\n", "lang": "ja"}).get_json()
    result = wait_for_run(client, broken["id"])["result"]
    assert result["status"] == "error"
    assert result["output"] == "before\n"
    assert result["error"]["kind"] == "runtime" and result["error"]["line"] == 2
    assert "ZeroDivisionError" in result["error"]["message"]
    assert "2 行目" in result["error"]["message"]  # in the language asked for
    assert count(app, Run) == 1  # the learner's earlier Run was forgotten when this one came


def test_unknown_exercise_is_404_in_the_requests_language(client):
    response = client.post("/api/exercises/no-such/run", json={"code": "x = 1"}, headers=JA)
    assert response.status_code == 404
    body = response.get_json()
    assert body["error"] == "unknown_exercise"
    assert body["message"] == "この ID の演習はありません。"


def test_a_quiz_has_nothing_to_run(client):
    response = client.post("/api/exercises/pick-a-dtype/run", json={"code": "x = 1"})
    assert response.status_code == 400
    assert response.get_json()["error"] == "not_runnable"
    ja = client.post("/api/exercises/pick-a-dtype/run", json={"code": "x = 1"}, headers=JA)
    assert ja.get_json()["message"] == "この演習はクイズです。実行するコードはありません。"


@pytest.mark.parametrize(("body", "status", "error"), [
    ({"code": 3}, 400, "bad_code"),
    ({}, 400, "bad_code"),
    ({"code": "#" * (64 * 1024 + 1)}, 413, "code_too_large"),
    ({"code": "x = 1\x00"}, 400, "bad_code"),
])
def test_bad_bodies_are_refused_and_nothing_is_queued(app, client, body, status, error):
    response = client.post(URL, json=body)
    assert response.status_code == status
    assert response.get_json()["error"] == error
    assert count(app, Run) == 0


def test_not_json_is_refused(client):
    response = client.post(URL, data="code=1", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert response.get_json()["error"] == "not_json"


@pytest.mark.parametrize("path", ["/api/runs/00000000-0000-4000-8000-000000000000",
                                  "/api/runs/" + "9" * 400, "/api/runs/%00"])
def test_an_unknown_run_is_404_in_the_requests_language(client, path):
    response = client.get(path, headers=JA)
    assert response.status_code == 404
    if "%00" not in path:  # NUL is refused before any lookup (app.security), with its own message
        assert response.get_json() == {"error": "unknown_run", "message": "この ID の実行はありません。"}
    assert client.post(path + "/stop", json={}, headers=JA).status_code == 404


def test_runs_are_rate_limited_like_submissions_and_say_so(make_app):
    app = make_app(SUBMISSION_RATE_LIMIT="2/minute")
    client = app.test_client()
    for _ in range(2):  # refused bodies still count: each request could have been a sandbox
        assert client.post(URL, json={"code": 3}).status_code == 400
    response = client.post(URL, json={"code": 3}, headers=JA)
    assert response.status_code == 429
    body = response.get_json()
    assert body["error"] == "too_many_runs"
    assert "2 per 1 minute" in body["message"] and "実行" in body["message"]
    assert response.headers.get("Retry-After")
    # Submissions are counted apart: running did not use them up.
    assert client.post("/api/exercises/add-numbers/submissions", json={"code": "x = 1"}).status_code == 202
