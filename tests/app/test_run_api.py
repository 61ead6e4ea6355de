"""POST /api/exercises/<id>/run: the learner's code runs for real (no tests, nothing stored); bad input is a 4xx."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import Submission

URL = "/api/exercises/add-numbers/run"
JA = {"Accept-Language": "ja"}


def count(app) -> int:
    with app.app_context():
        return db.session.query(Submission).count()


@pytest.mark.slow
def test_run_executes_the_top_level_for_real_and_stores_nothing(app, client, monkeypatch):
    monkeypatch.setenv("GRADER_POOL_SIZE", "0")  # a fresh sandbox: no pool left in this process
    code = "def add(a, b):\n    return a + b\n\nprint('two and three:', add(2, 3))\n"
    response = client.post(URL, json={"code": code})
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert set(body) == {"status", "output", "error", "duration_s"}
    assert body["status"] == "ok" and body["error"] is None
    assert body["output"] == "two and three: 5\n"
    assert count(app) == 0  # a run is not a submission

    broken = client.post(URL, json={"code": "print('before')\nx = 1 / 0\n", "lang": "ja"}).get_json()
    assert broken["status"] == "error"
    assert broken["output"] == "before\n"
    assert broken["error"]["kind"] == "runtime" and broken["error"]["line"] == 2
    assert "ZeroDivisionError" in broken["error"]["message"]
    assert "2 行目" in broken["error"]["message"]  # in the language asked for


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
def test_bad_bodies_are_refused(client, body, status, error):
    response = client.post(URL, json=body)
    assert response.status_code == status
    assert response.get_json()["error"] == error


def test_not_json_is_refused(client):
    response = client.post(URL, data="code=1", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert response.get_json()["error"] == "not_json"


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
