"""The hint ladder on the web: rungs on request in the page's language, with the lesson section; reveals counted."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask

from app.extensions import db
from app.models import HintReveal
from app.progress.hints import use_by_exercise
from tests.app.accounts_helpers import login, make_user

REPO = Path(__file__).resolve().parents[3]
URL = "/api/exercises/tensors-broadcast/hints/"


@pytest.fixture
def real_app(make_app) -> Flask:
    return make_app(EXERCISES_DIR=str(REPO / "exercises"), LESSONS_DIR=str(REPO / "lessons"))


def _ask(client, check: str, rung: int):
    return client.post(f"{URL}{check}/{rung}", json={})


def test_the_rungs_come_one_by_one_with_the_lesson_section(real_app: Flask) -> None:
    client = real_app.test_client()
    concept = _ask(client, "distances-shape", 2)
    assert concept.status_code == 200 and concept.headers["Cache-Control"] == "no-store"
    body = concept.get_json()
    assert body["kind"] == "concept" and body["more"] is True
    assert body["text"].startswith("Two tensors of shapes (n, 1, d)")
    assert body["lesson_url"].startswith("/lessons/01-tensors/#")
    assert body["lesson_title"] == "Operations and broadcasting"
    api = _ask(client, "distances-shape", 3).get_json()
    assert api["kind"] == "api" and api["more"] is False and "unsqueeze" in api["text"]
    assert _ask(client, "distances-shape", 4).status_code == 404
    assert _ask(client, "distances-shape", 1).status_code == 404  # the nudge comes with the results


def test_japanese_pages_get_japanese_rungs_and_the_japanese_heading(real_app: Flask) -> None:
    client = real_app.test_client()
    client.get("/lang/ja?next=/")
    body = _ask(client, "distances-shape", 2).get_json()
    assert body["text"].startswith("形状 `(n, 1, d)`")
    english = real_app.test_client()
    url_en = _ask(english, "distances-shape", 2).get_json()["lesson_url"]
    assert body["lesson_url"].startswith("/lessons/01-tensors/#") and body["lesson_url"] != url_en
    page = client.get("/lessons/01-tensors/").get_data(as_text=True)
    assert f'id="{body["lesson_url"].split("#")[1]}"' in page  # the anchor exists on the ja page


def test_amp_checks_take_the_grader_defaults(real_app: Flask) -> None:
    body = real_app.test_client().post(
        "/api/exercises/amp-train-one-epoch/hints/update-after-step/2", json={}).get_json()
    assert body["kind"] == "concept" and body["lesson_url"].startswith("/lessons/03-mixed-precision/#")


def test_unknown_checks_exercises_and_bodies_are_refused(real_app: Flask) -> None:
    client = real_app.test_client()
    assert _ask(client, "no-such-check", 2).status_code == 404
    assert client.post("/api/exercises/nope/hints/x/2", json={}).status_code == 404
    assert client.post(f"{URL}distances-shape/2", data="x", content_type="text/plain").status_code == 400
    assert client.get(f"{URL}distances-shape/2").status_code == 405


def test_a_reveal_is_stored_once_and_counted_per_exercise(real_app: Flask) -> None:
    first, second = real_app.test_client(), real_app.test_client()
    for client in (first, first, second):
        assert _ask(client, "distances-shape", 2).status_code == 200
    assert _ask(first, "distances-shape", 3).status_code == 200
    with real_app.app_context():
        assert db.session.query(HintReveal).count() == 3  # first's repeat is not stored again
        rows = db.session.query(HintReveal).all()
        assert {r.check_id for r in rows} == {"distances-shape"} and all(r.learner for r in rows)
        assert use_by_exercise() == {"tensors-broadcast": {2: 2, 3: 1}}


def test_the_instructor_overview_shows_hint_use_per_exercise(real_app: Flask) -> None:
    learner = real_app.test_client()
    _ask(learner, "distances-shape", 2)
    _ask(learner, "distances-shape", 3)
    make_user(real_app, "teacher@example.com", role="instructor")
    teacher = real_app.test_client()
    login(teacher, "teacher@example.com")
    html = teacher.get("/instructor/").get_data(as_text=True)
    row = html[html.index('<tr data-exercise="tensors-broadcast">'):]
    row = row[:row.index("</tr>")]
    assert '<td class="hint-use">idea 1 · API 1</td>' in row
    other = html[html.index('<tr data-exercise="tensors-devices">'):]
    assert '<td class="hint-use">–</td>' in other[:other.index("</tr>")]


def test_reveals_made_before_signing_up_move_to_the_account(real_app: Flask) -> None:
    from app.accounts.merge import adopt_anonymous_work

    client = real_app.test_client()
    _ask(client, "distances-shape", 2)
    with real_app.app_context():
        anonymous = db.session.query(HintReveal).one().learner
        db.session.add(HintReveal(learner="account-key", exercise_id="tensors-broadcast",
                                  check_id="distances-shape", rung=2))
        db.session.add(HintReveal(learner=anonymous, exercise_id="tensors-broadcast",
                                  check_id="no-loops", rung=2))
        db.session.commit()
        adopt_anonymous_work(anonymous, "account-key")
        rows = {(r.learner, r.check_id) for r in db.session.query(HintReveal)}
    assert rows == {("account-key", "distances-shape"), ("account-key", "no-loops")}


def test_an_anonymous_sessions_reveals_expire_with_its_other_work(real_app: Flask) -> None:
    from datetime import timedelta

    from app.models import utcnow
    from app.progress.expiry import expire

    _ask(real_app.test_client(), "distances-shape", 2)
    with real_app.app_context():
        db.session.add(HintReveal(learner="u" + "0" * 32, exercise_id="tensors-broadcast",
                                  check_id="no-loops", rung=2, created_at=utcnow() - timedelta(days=400)))
        db.session.commit()
        expire(now=utcnow() + timedelta(days=365))
        assert [r.learner for r in db.session.query(HintReveal)] == ["u" + "0" * 32]  # accounts keep theirs
