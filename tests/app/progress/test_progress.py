"""Progress: states per exercise and quiz, the dashboard, server drafts, history and diffs."""

from __future__ import annotations

import re

import pytest

from app.accounts.identity import learner_key
from app.progress.aggregates import learner_progress
from app.progress.diff import diff_lines
from tests.app.accounts_helpers import (
    GOOD,
    QUIZ_ID,
    URL,
    WRONG,
    add_quiz,
    answer_quiz,
    login,
    logout,
    register,
    signed_in,
)
from tests.app.web_helpers import wait_for_done

DRAFT = "/api/exercises/add-numbers/draft"
STARTER = "def add(a, b):\n    pass  # <your code>\n"


@pytest.fixture
def app(make_app, content):
    add_quiz(content["exercises"])
    return make_app()


def submit(client, code):
    submission_id = client.post(URL, json={"code": code}).get_json()["id"]
    wait_for_done(client, submission_id)
    return submission_id


def states(client) -> dict[str, str]:
    html = client.get("/progress").get_data(as_text=True)
    return dict(re.findall(r'data-exercise="([^"]+)" data-state="([^"]+)"', html))


def test_states_not_started_attempted_solved(client):
    assert states(client)["add-numbers"] == "not_started"
    submit(client, WRONG)
    assert states(client)["add-numbers"] == "attempted"
    submit(client, GOOD)
    submit(client, WRONG)  # a later failure does not undo a pass
    found = states(client)
    assert found["add-numbers"] == "solved" and found["add-again"] == "not_started"


def test_quiz_progress_keeps_the_best_score(app, client):
    answer_quiz(client, {"half": "fp32", "bits": "32"})  # half right
    answer_quiz(client, {"half": "fp16", "bits": "31"})  # half right again
    assert states(client)[QUIZ_ID] == "attempted"
    html = client.get("/progress").get_data(as_text=True)
    assert "50%" in html
    answer_quiz(client, {"half": "fp16", "bits": "32"})
    answer_quiz(client, {"half": "fp32", "bits": "1"})  # the best score stays
    assert states(client)[QUIZ_ID] == "solved"
    assert "100%" in client.get("/progress").get_data(as_text=True)


def test_internal_errors_do_not_count_as_attempts(make_app, content):
    def broken(exercise, code, **kwargs):
        raise RuntimeError("sandbox down")

    add_quiz(content["exercises"])
    app = make_app(GRADE_FUNCTION=broken)
    client = app.test_client()
    submit(client, GOOD)
    assert states(client)["add-numbers"] == "not_started"


def test_dashboard_counts_per_lesson_and_asks_anonymous_learners_to_sign_up(client):
    submit(client, GOOD)
    html = client.get("/progress").get_data(as_text=True)
    assert "1 of 4 solved" in html  # lesson 1: two code exercises and two quizzes
    assert "this progress belongs to this browser only" in html
    assert client.get("/progress").headers["Cache-Control"] == "no-store"


def test_draft_api_saves_reads_and_forgets(client):
    assert client.get(DRAFT).get_json()["code"] is None
    saved = client.put(DRAFT, json={"code": "def add(a, b):\n    return 1\n"})
    assert saved.status_code == 200 and saved.get_json()["saved"] is True
    body = client.get(DRAFT).get_json()
    assert body["code"] == "def add(a, b):\n    return 1\n" and body["updated_at"]
    client.put(DRAFT, json={"code": "second"})
    assert client.get(DRAFT).get_json()["code"] == "second"  # one draft, updated
    assert client.put(DRAFT, json={"code": STARTER}).get_json()["saved"] is False
    assert client.get(DRAFT).get_json()["code"] is None  # the starter is no draft
    client.put(DRAFT, json={"code": "third"})
    assert client.delete(DRAFT).status_code == 204
    assert client.get(DRAFT).get_json()["code"] is None


@pytest.mark.parametrize(("kwargs", "status", "error"), [
    ({"data": "code=x", "content_type": "application/x-www-form-urlencoded"}, 400, "not_json"),
    ({"json": {"code": 3}}, 400, "bad_code"),
    ({"json": {"code": "#" * (64 * 1024 + 1)}}, 413, "code_too_large"),
    ({"json": {"code": "a\u0000b"}}, 400, "bad_code"),
])
def test_draft_api_refuses_bad_bodies(client, kwargs, status, error):
    response = client.put(DRAFT, **kwargs)
    assert response.status_code == status and response.get_json()["error"] == error
    assert client.get(DRAFT).get_json()["code"] is None


def test_draft_api_knows_only_code_exercises(client):
    assert client.get(f"/api/exercises/{QUIZ_ID}/draft").status_code == 404
    assert client.put("/api/exercises/nothing/draft", json={"code": "x"}).status_code == 404


def test_exercise_page_carries_the_server_draft_and_a_per_learner_scope(app, client):
    client.put(DRAFT, json={"code": "print('</script><b>x</b>')"})
    response = client.get("/exercises/add-numbers")
    html = response.get_data(as_text=True)
    assert 'id="server-draft"' in html and "\\u003c/script\\u003e" in html  # escaped JSON
    assert "</script><b>" not in html
    assert response.headers["Cache-Control"] == "no-store"
    scope = html.split('data-draft-scope="')[1].split('"')[0]
    other = app.test_client().get("/exercises/add-numbers").get_data(as_text=True)
    assert len(scope) == 16 and scope not in other
    assert "null" in other.split('id="server-draft">')[1][:10]  # nobody else sees the draft


def test_a_draft_follows_the_account_to_another_device(app):
    laptop = signed_in(app, "ada@example.org")
    laptop.put(DRAFT, json={"code": "from the laptop"})
    phone = app.test_client()
    login(phone, "ada@example.org")
    assert phone.get(DRAFT).get_json()["code"] == "from the laptop"
    assert "from the laptop" in phone.get("/exercises/add-numbers").get_data(as_text=True)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_history_of_an_exercise_never_submitted(client, lang):
    """The "My submissions" link is on every exercise page, before any submission too."""
    client.set_cookie("lang", lang)
    page = client.get("/exercises/add-numbers/history")
    assert page.status_code == 200


def test_history_lists_every_submission_newest_first(client):
    first, second = submit(client, WRONG), submit(client, GOOD)
    html = client.get("/exercises/add-numbers/history").get_data(as_text=True)
    assert html.index(second) < html.index(first)
    assert "pass" in html and "fail" in html
    # The newest entry carries its feedback, code and diff against the one before; the older
    # one is collapsed and fetches the same from its fragment when opened.
    assert '<span class="diff-add">+    return a + b</span>' in html
    assert "add() does not return a + b." not in html  # the older entry's feedback
    assert f'data-code-url="/submissions/{first}/code"' in html
    older = client.get(f"/submissions/{first}/code").get_data(as_text=True)
    assert "return a - b" in older and "add() does not return a + b." in older
    assert older.count("This is the first submission of this exercise.") == 1
    body = client.get("/api/exercises/add-numbers/history").get_json()
    assert [s["id"] for s in body["submissions"]] == [second, first]  # newest first, like the page
    assert [s["verdict"] for s in body["submissions"]] == ["pass", "fail"]
    assert body["older"] is None


def test_submission_page_shows_code_feedback_and_an_escaped_diff(client):
    first = submit(client, WRONG)
    html = client.get(f"/submissions/{first}").get_data(as_text=True)
    assert "This is the first submission of this exercise." in html
    assert "add() does not return a + b." in html and 'data-check="returns-sum"' in html
    sneaky = GOOD + "# <script>alert(1)</script>\n"
    second = submit(client, sneaky)
    html = client.get(f"/submissions/{second}").get_data(as_text=True)
    assert '<span class="diff-del">-    return a - b</span>' in html
    assert '<span class="diff-add">+    return a + b</span>' in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert(1)" not in html
    assert f'href="/submissions/{first}"' in html  # a link to the previous one


def test_same_code_twice_says_so(client):
    submit(client, GOOD)
    again = submit(client, GOOD)
    html = client.get(f"/submissions/{again}").get_data(as_text=True)
    assert "The code is the same as in the previous submission." in html


def test_diff_lines_unit():
    rows = diff_lines("a\nb\nc\n", "a\nB\nc\n--x\n")
    kinds = [(row.kind, row.text) for row in rows]
    assert kinds[0][0] == "hunk"
    assert ("del", "b") in kinds and ("add", "B") in kinds and ("add", "--x") in kinds
    assert diff_lines("same\n", "same\n") == []


def test_signing_up_keeps_what_was_done_anonymously(app, client):
    submission_id = submit(client, GOOD)
    client.put(DRAFT, json={"code": "anonymous draft"})
    answer_quiz(client, {"half": "fp16", "bits": "32"})
    assert register(client, "ada@example.org").status_code == 302
    assert login(client, "ada@example.org").status_code == 302  # adopts the anonymous work
    found = states(client)
    assert found["add-numbers"] == "solved" and found[QUIZ_ID] == "solved"
    assert client.get(f"/api/submissions/{submission_id}").status_code == 200
    assert client.get(DRAFT).get_json()["code"] == "anonymous draft"
    # After logging out, this browser is a new anonymous learner with nothing.
    logout(client)
    assert states(client)["add-numbers"] == "not_started"
    assert client.get(f"/api/submissions/{submission_id}").status_code == 404


def test_logging_in_adopts_anonymous_work_and_keeps_the_newer_draft(app):
    laptop = signed_in(app, "ada@example.org")
    laptop.put(DRAFT, json={"code": "older account draft"})
    laptop.put("/api/exercises/add-again/draft", json={"code": "account only"})
    kiosk = app.test_client()
    kiosk.put(DRAFT, json={"code": "newer anonymous draft"})
    submit(kiosk, WRONG)
    assert login(kiosk, "ada@example.org").status_code == 302
    assert kiosk.get(DRAFT).get_json()["code"] == "newer anonymous draft"
    assert kiosk.get("/api/exercises/add-again/draft").get_json()["code"] == "account only"
    assert states(laptop)["add-numbers"] == "attempted"


def test_learner_progress_reads_only_that_learner(app, client):
    submit(client, GOOD)
    with app.test_request_context():
        assert learner_progress("0" * 32) == {}
        fresh = learner_key()  # a request without a session gets a new anonymous key
        assert len(fresh) == 32 and learner_progress(fresh) == {}
