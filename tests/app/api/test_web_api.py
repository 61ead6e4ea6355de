"""The JSON API: the happy path, and every kind of bad input refused without storing anything."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import Submission
from tests.app.grading.queues import StoppedQueue
from tests.app.web_helpers import wait_for_done

URL = "/api/exercises/add-numbers/submissions"
GOOD = "def add(a, b):\n    return a + b\n"


def count(app) -> int:
    with app.app_context():
        return db.session.query(Submission).count()


def test_submit_then_poll_until_graded(client):
    response = client.post(URL, json={"code": GOOD})
    assert response.status_code == 202
    body = response.get_json()
    assert body["status"] == "queued" and len(body["id"]) == 36
    assert response.headers["Location"] == f"/api/submissions/{body['id']}"
    done = wait_for_done(client, body["id"])
    assert done["exercise"] == "add-numbers"
    assert set(done) == {"id", "exercise", "status", "result", "queue_position", "waited_s",
                         "elapsed_s", "phase", "created_at"}
    assert done["created_at"].endswith("+00:00")  # with its zone: the browser shows the reader's time
    # only while waiting
    assert done["queue_position"] is None and done["elapsed_s"] is None and done["waited_s"] is None
    assert done["phase"] is None
    assert done["result"]["status"] == "pass"
    assert done["result"]["output"] == "graded with sandbox=local"  # the configured sandbox


def test_failing_code_gets_feedback_in_the_chosen_language(client):
    wrong = "def add(a, b):\n    return a - b\n"
    body = client.post(URL, json={"code": wrong, "lang": "ja"}).get_json()
    result = wait_for_done(client, body["id"])["result"]
    assert result["status"] == "fail"
    assert result["tests"][0]["message"] == "add() は a + b を返していません。"
    assert result["tests"][0]["line"] == 2


def test_ids_are_not_sequential(client):
    first = client.post(URL, json={"code": GOOD}).get_json()["id"]
    second = client.post(URL, json={"code": GOOD}).get_json()["id"]
    assert first != second and first[:8] != second[:8]


def test_code_of_exactly_the_limit_is_accepted(app, client):
    code = "#" * (64 * 1024)
    assert client.post(URL, json={"code": code}).status_code == 202


def test_code_over_64_kb_is_refused_with_413(app, client):
    response = client.post(URL, json={"code": "#" * (64 * 1024 + 1)})
    assert response.status_code == 413
    body = response.get_json()
    assert body["error"] == "code_too_large"
    assert "65537 bytes" in body["message"] and "65536" in body["message"]
    assert count(app) == 0


def test_multibyte_code_is_measured_in_utf8_bytes(app, client):
    code = "あ" * 21846  # 3 bytes each: 65538 bytes, but only 21846 characters
    assert client.post(URL, json={"code": code}).status_code == 413
    assert count(app) == 0


def test_huge_body_is_refused_before_it_is_read(app, client):
    response = client.post(URL, data=b"x" * (2 * 1024 * 1024), content_type="application/json")
    assert response.status_code == 413
    assert response.is_json
    assert count(app) == 0


@pytest.mark.parametrize(
    ("data", "content_type", "error"),
    [
        (b'{"code": "\xff\xfe"}', "application/json", "not_utf8"),
        (b"code=print(1)", "application/x-www-form-urlencoded", "not_json"),
        (b"{not json", "application/json", "not_json"),
        (b'["code"]', "application/json", "not_json"),
        (b"{}", "application/json", "bad_code"),
        (b'{"code": 42}', "application/json", "bad_code"),
        (b'{"code": null}', "application/json", "bad_code"),
        (b'{"code": "\\ud800"}', "application/json", "not_utf8"),
        (b'{"code": "a\\u0000b"}', "application/json", "bad_code"),
    ],
)
def test_bad_bodies_are_refused_with_400(app, client, data, content_type, error):
    response = client.post(URL, data=data, content_type=content_type)
    assert response.status_code == 400
    body = response.get_json()
    assert body["error"] == error
    assert body["message"]  # a sentence for people, not an empty string
    assert count(app) == 0


def test_unknown_exercise_is_404_json(app, client):
    response = client.post("/api/exercises/no-such-thing/submissions", json={"code": GOOD})
    assert response.status_code == 404
    assert response.get_json()["error"] == "unknown_exercise"
    assert count(app) == 0


def test_quiz_is_not_gradable_here(app, client):
    response = client.post("/api/exercises/pick-a-dtype/submissions", json={"code": GOOD})
    assert response.status_code == 400
    assert response.get_json()["error"] == "not_gradable"
    assert count(app) == 0


def test_unknown_submission_is_404_json(client):
    response = client.get("/api/submissions/00000000-0000-0000-0000-000000000000")
    assert response.status_code == 404
    assert response.get_json()["error"] == "unknown_submission"


def test_unknown_api_route_and_wrong_method_answer_json(client):
    assert client.get("/api/nothing").get_json()["error"] == "not_found"
    response = client.get(URL)
    assert response.status_code == 405 and response.is_json


def test_a_queue_that_refuses_leaves_nothing_stored(make_app):
    class ClosedQueue(StoppedQueue):
        def enqueue(self, kind, job_id):
            raise RuntimeError("queue is down")

    app = make_app(GRADING_QUEUE=lambda app: ClosedQueue())
    response = app.test_client().post(URL, json={"code": GOOD})
    assert response.status_code == 503
    assert response.get_json()["error"] == "queue_unavailable"
    assert count(app) == 0
