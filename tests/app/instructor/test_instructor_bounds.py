"""Instructor pages aggregate in the database: their queries and the rows they read do not grow with stored results."""

from __future__ import annotations

from sqlalchemy import insert
from werkzeug.security import generate_password_hash

from app.extensions import db
from app.instructor.learners import LEARNERS_PAGE
from app.models import Submission, User
from tests.app.accounts_helpers import signed_in
from tests.app.progress.test_quota_cost import Statements

ACCOUNTS = 60  # more than one page of learners
PAGES = ["/instructor/", "/api/instructor/stats", "/instructor/learners", "/instructor/learners?page=2",
         "/instructor/learners/2", "/instructor/export.csv"]


def result(n: int) -> dict:
    """A graded result: every 5th passes; the others fail a check named after n's parity."""
    if n % 5 == 4:
        return {"status": "pass", "score": 1.0, "tests": [{"check": "sum", "status": "pass"}]}
    return {"status": "fail", "score": 0.25, "message": "m" * 500,
            "tests": [{"check": f"check-{n % 2}", "status": "fail", "message": "x" * 500},
                      {"check": "sum", "status": "pass"}]}


def store(app, keys: list[str], per_learner: int) -> None:
    with app.app_context():
        db.session.execute(insert(Submission), [
            {"exercise_id": exercise, "learner": key, "code": "#" * 200, "status": "done", "result": result(n)}
            for key in keys for exercise in ("add-numbers", "add-again") for n in range(per_learner)])
        db.session.commit()


def cost(app, client, url: str) -> tuple[int, int]:
    """(statements sent, rows they returned) for one view of the page."""
    with app.app_context(), Statements(db.engine) as sql:
        response = client.get(url)
        assert response.status_code == 200, url
        response.get_data()  # a streamed body runs its queries while it is read
    rows = 0
    with app.app_context():
        connection = db.session.connection()
        for statement, parameters in sql.seen:
            if statement.lstrip().upper().startswith(("SELECT", "WITH")):
                rows += len(connection.exec_driver_sql(statement, parameters).fetchall())
    return len(sql.seen), rows


def test_instructor_pages_cost_the_same_at_ten_times_the_history(make_app):
    app = make_app()
    teacher = signed_in(app, "teach@example.org", role="instructor")
    cheap = generate_password_hash("a class pass phrase", method="pbkdf2:sha256:1000")
    with app.app_context():
        db.session.add_all(User(email=f"pupil{n:02d}@school.example", password_hash=cheap)
                           for n in range(ACCOUNTS))
        db.session.commit()
        keys = [user.learner_key for user in db.session.scalars(db.select(User).where(User.role != "instructor"))]
    store(app, keys, 10)  # 1,200 results; each learner passes first at the 5th
    small = {url: cost(app, teacher, url) for url in PAGES}
    store(app, keys, 30)  # 4,800 results in all, each with two tests and 1.5 KB of texts
    large = {url: cost(app, teacher, url) for url in PAGES}
    assert large == small
    exercises = 3  # the test course: add-numbers, add-again and a quiz
    for url, (statements, rows) in large.items():
        assert statements <= 20, (url, statements)
        assert rows <= (LEARNERS_PAGE + 1) * exercises + 50, (url, rows)
    body = teacher.get("/api/instructor/stats").get_json()
    stats = {item["exercise"]: item for item in body["exercises"]}["add-numbers"]
    assert stats["learners"] == ACCOUNTS and stats["passed"] == ACCOUNTS
    assert stats["submissions"] == ACCOUNTS * 40 and stats["median_attempts_to_pass"] == 5
    assert stats["failing_checks"] == [{"check": "check-0", "learners": ACCOUNTS},
                                       {"check": "check-1", "learners": ACCOUNTS}]
    page2 = teacher.get("/instructor/learners?page=2").get_data(as_text=True)
    assert "pupil59@school.example" in page2 and "pupil00@school.example" not in page2
    assert teacher.get("/instructor/learners?page=9").status_code == 404
    export = teacher.get("/instructor/export.csv").get_data(as_text=True)
    assert export.count("\r\n") == 1 + ACCOUNTS * exercises  # header, every learner x exercise (not the instructor)
