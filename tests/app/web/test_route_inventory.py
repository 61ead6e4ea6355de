"""Every GET route, with real ids filled in, as four kinds of visitor in both languages: no 5xx.

The table FILL names the URLs to request for each endpoint. A route added to the app without
an entry here fails test_every_get_route_is_filled, so the inventory cannot go stale.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from app.extensions import db
from app.grading import regrade
from app.models import Submission
from grader.api import load_exercises, public_questions
from tests.app.accounts_helpers import login, make_user
from tests.app.grading.queues import wait_until
from tests.app.regrade.regrade_helpers import mark_validated
from tests.app.web_helpers import wait_for_done

REPO = Path(__file__).resolve().parents[3]
CATALOG = load_exercises(REPO / "exercises").exercises
CODE_IDS = sorted(i for i, e in CATALOG.items() if e.config.kind == "code")
QUIZ_IDS = sorted(i for i, e in CATALOG.items() if e.config.kind == "quiz")
SLUGS = sorted(p.name for p in (REPO / "lessons").iterdir() if p.is_dir())
IMAGE = next((REPO / "lessons").glob("*/img/*.svg"))
UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000"
HOSTILE_NEXT = "/%0d%0aSet-Cookie:%20x=1"  # CR LF in a redirect target


@dataclass
class World:
    """Ids of real rows: the busy learner's submissions, quiz attempt and account ids."""

    exercise: str
    quiz: str
    submissions: list[str]
    attempt: str
    learner_id: int
    busy_id: int
    run: str = UNKNOWN_UUID


FILL: dict[str, Callable[[World], list[str]]] = {
    "lessons.course": lambda w: ["/"],
    "lessons.lesson": lambda w: [f"/lessons/{slug}/" for slug in SLUGS] + ["/lessons/nope/"],
    "lessons.image": lambda w: [f"/lessons/{IMAGE.parent.parent.name}/img/{IMAGE.name}",
                                f"/lessons/{SLUGS[0]}/img/..%2f..%2fen.md"],
    "exercises.show": lambda w: [f"/exercises/{i}" for i in sorted(CATALOG)] + ["/exercises/x"],
    "progress.history": lambda w: [f"/exercises/{i}/history" for i in CODE_IDS]
    + [f"/exercises/{w.quiz}/history"]
    + [f"/exercises/{w.exercise}/history?{key}={s}" for key in ("before", "after")
       for s in [*w.submissions, UNKNOWN_UUID, "%00", "9" * 400]],
    "progress.submission_code": lambda w: [f"/submissions/{s}/code" for s in w.submissions]
    + [f"/submissions/{UNKNOWN_UUID}/code", "/submissions/" + "9" * 400 + "/code",
       "/submissions/%00/code"],
    "progress.submission_panel": lambda w: [f"/submissions/{s}/panel" for s in w.submissions]
    + [f"/submissions/{UNKNOWN_UUID}/panel", "/submissions/%00/panel"],
    "progress.dashboard": lambda w: ["/progress"],
    "progress.submission": lambda w: [f"/submissions/{s}" for s in w.submissions]
    + [f"/submissions/{UNKNOWN_UUID}", "/submissions/" + "9" * 400, "/submissions/%00"],
    "progress.get_draft": lambda w: [f"/api/exercises/{w.exercise}/draft",
                                     f"/api/exercises/{w.quiz}/draft"],
    "progress.api_history": lambda w: [f"/api/exercises/{w.exercise}/history",
                                       "/api/exercises/nope/history"]
    + [f"/api/exercises/{w.exercise}/history?before={s}" for s in [*w.submissions, "%00"]],
    "api.submission": lambda w: [f"/api/submissions/{s}" for s in w.submissions]
    + [f"/api/submissions/{UNKNOWN_UUID}", "/api/submissions/%00", "/api/submissions/a%0d%0a"],
    "api.run_status": lambda w: [f"/api/runs/{w.run}", f"/api/runs/{UNKNOWN_UUID}", "/api/runs/%00",
                                 "/api/runs/" + "9" * 400],
    "quizzes.show": lambda w: [f"/quizzes/{q}" for q in QUIZ_IDS]
    + [f"/quizzes/{w.quiz}?attempt={w.attempt}", f"/quizzes/{w.quiz}?attempt=%00",
       "/quizzes/nope"],
    "quizzes.api_questions": lambda w: [f"/api/quizzes/{q}" for q in QUIZ_IDS]
    + ["/api/quizzes/nope"],
    "accounts.login": lambda w: ["/login", f"/login?next={HOSTILE_NEXT}", "/login?next=//[x"],
    "accounts.register": lambda w: ["/register", f"/register?next={HOSTILE_NEXT}"],
    "accounts.password": lambda w: ["/account/password"],
    "set_language": lambda w: ["/lang/ja?next=/progress", "/lang/en?next=/", "/lang/xx",
                               f"/lang/ja?next={HOSTILE_NEXT}", "/lang/en?next=//[x"],
    "instructor.overview": lambda w: ["/instructor/"],
    "instructor.export": lambda w: ["/instructor/export.csv"],
    "instructor.learners": lambda w: ["/instructor/learners"],
    "instructor.learner": lambda w: [f"/instructor/learners/{w.busy_id}",
                                     f"/instructor/learners/{w.learner_id}",
                                     "/instructor/learners/999999"],
    "instructor.validation": lambda w: ["/instructor/validation"],
    "instructor.exercise": lambda w: [*(f"/instructor/exercises/{i}" for i in CODE_IDS + QUIZ_IDS),
                                      "/instructor/exercises/nope"],
    "instructor.stats": lambda w: ["/api/instructor/stats"],
    "instructor.regrade_report": lambda w: [*(f"/instructor/exercises/{i}/regrade" for i in CODE_IDS[:2]),
                                            f"/instructor/exercises/{w.quiz}/regrade",
                                            "/instructor/exercises/nope/regrade"],
    "static": lambda w: ["/static/css/site.css", "/static/nope.js"],
}


def get_endpoints(app: Flask) -> set[str]:
    return {rule.endpoint for rule in app.url_map.iter_rules() if "GET" in (rule.methods or ())}


@pytest.fixture
def course_app(make_app) -> Flask:
    return make_app(LESSONS_DIR=str(REPO / "lessons"), EXERCISES_DIR=str(REPO / "exercises"))


def _signed_in(app: Flask, email: str, role: str = "learner") -> tuple[FlaskClient, int]:
    user_id = make_user(app, email, role)
    client = app.test_client()
    assert login(client, email).status_code == 302
    return client, user_id


@pytest.fixture
def world(course_app: Flask) -> tuple[World, dict[str, FlaskClient]]:
    """Four visitors; the busy learner has graded submissions (the latest regraded), a draft and a quiz attempt."""
    busy, busy_id = _signed_in(course_app, "busy@example.org")
    fresh, fresh_id = _signed_in(course_app, "fresh@example.org")
    teacher, _teacher_id = _signed_in(course_app, "teach@example.org", "instructor")
    exercise, quiz = CODE_IDS[0], QUIZ_IDS[0]
    starter = CATALOG[exercise].starter
    submissions = []
    for code in (starter, starter + "\n# second try\n"):
        response = busy.post(f"/api/exercises/{exercise}/submissions", json={"code": code})
        assert response.status_code == 202, response.get_json()
        submissions.append(response.get_json()["id"])
    for submission in submissions:
        wait_for_done(busy, submission)
    # A third one left queued would race the worker; two graded ones give a diff.
    assert busy.put(f"/api/exercises/{exercise}/draft",
                    json={"code": starter + "\n# draft\n"}).status_code == 200
    # One answered question: an empty submit is refused and records nothing (test_quizzes).
    first = public_questions(CATALOG[quiz])[0]
    answer = first["choices"][0]["id"] if first.get("choices") else "1"
    answered = busy.post(f"/api/quizzes/{quiz}/answers", json={"answers": {first["id"]: answer}})
    assert answered.status_code == 200, answered.get_json()
    with course_app.app_context():
        assert db.session.query(Submission).count() == 2
    # The instructor regraded the exercise: the report has a row, the latest submission a note.
    mark_validated(course_app, exercise)
    with course_app.app_context():
        regrade.start(course_app, exercise)
        wait_until(lambda: regrade.active_run(exercise) is None, 60, "the regrade to finish")
    ran = busy.post(f"/api/exercises/{exercise}/run", json={"code": "print(1)"})
    assert ran.status_code == 202, ran.get_json()
    run = ran.get_json()["id"]
    assert busy.post(f"/api/runs/{run}/stop", json={}).get_json()["status"] == "done"
    found = World(exercise, quiz, submissions, answered.get_json()["attempt"], fresh_id, busy_id, run)
    return found, {"anonymous": course_app.test_client(), "new learner": fresh,
                   "busy learner": busy, "instructor": teacher}


def test_every_get_route_is_filled(course_app: Flask) -> None:
    missing = get_endpoints(course_app) - set(FILL)
    assert not missing, f"add these GET endpoints to FILL in {Path(__file__).name}: {missing}"


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_no_get_route_gives_a_server_error(course_app: Flask, world, lang: str) -> None:
    state, visitors = world
    urls = [url for endpoint in sorted(get_endpoints(course_app))
            for url in FILL[endpoint](state)]
    failures = []
    for name, client in visitors.items():
        client.set_cookie("lang", lang)
        for url in urls:
            response = client.get(url)
            if response.status_code >= 500:
                failures.append((name, url, response.status_code))
    assert not failures


def test_the_busy_learners_pages_render_their_work(world) -> None:
    """The filled ids are real: the owner sees each page, with content, in Japanese too."""
    state, visitors = world
    busy = visitors["busy learner"]
    busy.set_cookie("lang", "ja")
    for url in (f"/exercises/{state.exercise}/history", f"/submissions/{state.submissions[1]}",
                f"/quizzes/{state.quiz}?attempt={state.attempt}", "/progress",
                "/account/password", f"/exercises/{state.exercise}"):
        response = busy.get(url)
        assert response.status_code == 200, url
    history = busy.get(f"/exercises/{state.exercise}/history").get_data(as_text=True)
    assert "# second try" in history and 'class="diff-add"' in history
    for url in (f"/submissions/{state.submissions[1]}", f"/submissions/{state.submissions[1]}/panel"):
        assert "に再採点しました" in busy.get(url).get_data(as_text=True), url  # the regrade's note
    teacher = visitors["instructor"]
    assert teacher.get(f"/instructor/learners/{state.busy_id}").status_code == 200
    assert "busy@example.org" in teacher.get(f"/instructor/exercises/{state.exercise}/regrade").get_data(as_text=True)
    assert teacher.get(f"/submissions/{state.submissions[0]}").status_code == 200
    anonymous = visitors["anonymous"]
    assert anonymous.get(f"/submissions/{state.submissions[0]}").status_code == 404
    assert anonymous.get("/account/password").status_code == 302  # to the login page


@pytest.mark.parametrize("url", [f"/lang/ja?next={HOSTILE_NEXT}", f"/login?next={HOSTILE_NEXT}",
                                 "/lang/en?next=//[x"])
def test_control_characters_in_next_go_to_the_course(client, url: str) -> None:
    response = client.get(url)
    if url.startswith("/login"):
        assert response.status_code == 200
    else:
        assert response.status_code == 302 and response.headers["Location"] == "/"
        assert "Set-Cookie: x" not in str(response.headers)


@pytest.mark.parametrize("url", ["/api/submissions/%00", "/submissions/%00x",
                                 "/quizzes/pick-a-dtype?attempt=%00", "/?next=%00"])
def test_nul_in_an_address_is_refused_before_any_query(client, url: str) -> None:
    # SQLite answers such lookups; PostgreSQL raises on NUL in a query, which was a 500 there.
    response = client.get(url)
    assert response.status_code == (400 if "?" in url else 404)
    assert "Content-Security-Policy" in response.headers
