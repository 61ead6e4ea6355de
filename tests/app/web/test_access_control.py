"""Access control: no learner reads another's work by any id; instructors only; CSRF; limits."""

from __future__ import annotations

import pytest

from tests.app.accounts_helpers import GOOD, URL, WRONG, form_post, signed_in
from tests.app.web_helpers import wait_for_done

DRAFT = "/api/exercises/add-numbers/draft"


def submit(client, code=GOOD):
    submission_id = client.post(URL, json={"code": code}).get_json()["id"]
    wait_for_done(client, submission_id)
    return submission_id


@pytest.fixture
def ada(app):
    return signed_in(app, "ada@example.org")


@pytest.fixture
def bob(app):
    return signed_in(app, "bob@example.org")


@pytest.fixture
def teacher(app):
    return signed_in(app, "teach@example.org", role="instructor")


def test_another_learners_submission_is_404_through_api_and_html(ada, bob):
    secret = submit(ada, "def add(a, b):\n    return a + b  # ADA-SECRET\n")
    for path in (f"/api/submissions/{secret}", f"/submissions/{secret}"):
        response = bob.get(path)
        assert response.status_code == 404
        assert "ADA-SECRET" not in response.get_data(as_text=True)
    # The answer is the same as for an id that does not exist: nothing to learn from it.
    unknown = bob.get("/api/submissions/00000000-0000-0000-0000-000000000000").get_json()
    assert bob.get(f"/api/submissions/{secret}").get_json() == unknown
    assert ada.get(f"/api/submissions/{secret}").status_code == 200


def test_an_anonymous_browser_cannot_read_an_accounts_submission(app, ada):
    secret = submit(ada)
    stranger = app.test_client()
    assert stranger.get(f"/api/submissions/{secret}").status_code == 404
    assert stranger.get(f"/submissions/{secret}").status_code == 404


def test_history_and_diff_never_show_another_learner(ada, bob):
    submit(ada, "def add(a, b):\n    return a + b  # ADA-SECRET\n")
    mine = submit(bob, WRONG)
    for path in ("/exercises/add-numbers/history", "/api/exercises/add-numbers/history",
                 f"/submissions/{mine}"):
        assert "ADA-SECRET" not in bob.get(path).get_data(as_text=True)
    assert len(bob.get("/api/exercises/add-numbers/history").get_json()["submissions"]) == 1
    # Bob's first submission has no "previous" one, although Ada submitted earlier.
    assert "This is the first submission" in bob.get(f"/submissions/{mine}").get_data(as_text=True)


def test_drafts_are_per_learner(ada, bob):
    ada.put(DRAFT, json={"code": "ADA-DRAFT"})
    assert bob.get(DRAFT).get_json()["code"] is None
    assert "ADA-DRAFT" not in bob.get("/exercises/add-numbers").get_data(as_text=True)
    bob.put(DRAFT, json={"code": "bob's"})
    bob.delete(DRAFT)
    assert ada.get(DRAFT).get_json()["code"] == "ADA-DRAFT"  # Bob's delete touched his own


def test_submission_ids_that_are_not_uuids_are_404(bob):
    for bad in ("1", "' OR 1=1 --", "x" * 500):
        assert bob.get(f"/api/submissions/{bad}").status_code == 404
        assert bob.get(f"/submissions/{bad}").status_code == 404


INSTRUCTOR_PAGES = ["/instructor/", "/instructor/learners", "/instructor/learners/1",
                    "/instructor/export.csv", "/instructor/validation"]


@pytest.mark.parametrize("path", INSTRUCTOR_PAGES)
def test_instructor_pages_are_403_for_learners_and_anonymous(app, ada, path):
    for client in (ada, app.test_client()):
        response = client.get(path)
        assert response.status_code == 403
        assert "You do not have access to this page." in response.get_data(as_text=True)


def test_instructor_api_is_403_json_for_learners(app, ada):
    for client in (ada, app.test_client()):
        response = client.get("/api/instructor/stats")
        assert response.status_code == 403 and response.get_json()["error"] == "forbidden"
    response = form_post(ada, "/", {}, action="/instructor/validation")
    assert response.status_code == 403


def test_instructors_reach_their_pages_and_any_submission(ada, teacher):
    secret = submit(ada)
    for path in INSTRUCTOR_PAGES:  # account 1 is Ada's
        assert teacher.get(path).status_code == 200, path
    assert teacher.get("/api/instructor/stats").status_code == 200
    assert teacher.get(f"/submissions/{secret}").status_code == 200


@pytest.mark.parametrize("headers", [
    {"Origin": "https://evil.example"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site", "Origin": "https://sub.localhost"},
    {"Origin": "null"},
])
def test_cross_origin_requests_that_change_state_are_refused(ada, headers):
    for method, path, kwargs in (("post", URL, {"json": {"code": GOOD}}),
                                 ("put", DRAFT, {"json": {"code": "x"}}),
                                 ("delete", DRAFT, {}),
                                 ("post", "/api/quizzes/anything/answers", {"json": {}})):
        response = getattr(ada, method)(path, headers=headers, **kwargs)
        assert response.status_code == 403, (method, path)
    assert ada.get("/api/exercises/add-numbers/history").get_json()["submissions"] == []
    assert ada.get(DRAFT, headers=headers).status_code == 200  # reading is harmless


def test_same_origin_requests_pass(ada):
    same = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    assert ada.put(DRAFT, json={"code": "x"}, headers=same).status_code == 200
    assert ada.put(DRAFT, json={"code": "y"}, headers={"Origin": "http://localhost"}).status_code \
        == 200


def test_the_api_still_refuses_forms(ada):
    response = ada.post(URL, data={"code": GOOD})
    assert response.status_code == 400 and response.get_json()["error"] == "not_json"


def test_submissions_are_limited_per_learner(app, ada, bob):
    for _ in range(10):
        assert ada.post(URL, json={"code": GOOD}).status_code == 202
    refused = ada.post(URL, json={"code": GOOD})
    assert refused.status_code == 429
    body = refused.get_json()
    assert body["error"] == "too_many_submissions"
    assert "10 per 1 minute" in body["message"] and "Wait a moment" in body["message"]
    assert int(refused.headers["Retry-After"]) > 0
    assert bob.post(URL, json={"code": GOOD}).status_code == 202  # others are not held up
    app.extensions["grading_queue"].shutdown(wait=True)


def test_the_limit_message_is_translated(ada):
    for _ in range(10):
        ada.post(URL, json={"code": GOOD})
    response = ada.post(URL, json={"code": GOOD}, headers={"Accept-Language": "ja"})
    assert response.status_code == 429 and "提出" in response.get_json()["message"]


def test_new_anonymous_sessions_still_meet_the_address_limit(make_app):
    app = make_app(SUBMISSION_ADDRESS_RATE_LIMIT="3/minute")
    for _ in range(3):  # a fresh cookie jar each time: a new anonymous learner
        assert app.test_client().post(URL, json={"code": GOOD}).status_code == 202
    refused = app.test_client().post(URL, json={"code": GOOD})
    assert refused.status_code == 429 and refused.get_json()["error"] == "too_many_submissions"
