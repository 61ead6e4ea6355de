"""Drafts and quiz attempts of anonymous sessions expire; accounts' work stays."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from app.extensions import db
from app.models import Draft, QuizAttempt, utcnow
from app.progress import expiry

ANONYMOUS, OTHER, ACCOUNT = "a" * 32, "b" * 32, "u" + "c" * 32


def rows(app) -> set[tuple[str, str]]:
    with app.app_context():
        found = {("draft", d.learner) for d in db.session.scalars(select(Draft))}
        found |= {("attempt", a.learner) for a in db.session.scalars(select(QuizAttempt))}
        db.session.remove()
        return found


def seed(app) -> None:
    old = utcnow() - timedelta(hours=25)
    with app.app_context():
        for learner, when in ((ANONYMOUS, old), (OTHER, utcnow()), (ACCOUNT, old)):
            db.session.add(Draft(learner=learner, exercise_id="add-numbers", code="x", updated_at=when))
            db.session.add(QuizAttempt(learner=learner, exercise_id="quiz", answers={}, result={},
                                       score=0.0, created=when))
        db.session.commit()
        db.session.remove()


def test_old_anonymous_work_goes_and_everything_else_stays(app):
    seed(app)
    with app.app_context():
        assert expiry.expire() == (1, 1)
    assert rows(app) == {("draft", OTHER), ("attempt", OTHER), ("draft", ACCOUNT),
                         ("attempt", ACCOUNT)}


def test_a_draft_save_runs_the_cleanup_at_most_once_per_interval(app, monkeypatch):
    seed(app)
    monkeypatch.setitem(expiry._last_run, "at", float("-inf"))
    client = app.test_client()
    assert client.put("/api/exercises/add-numbers/draft", json={"code": "# new"}).status_code == 200
    assert ("draft", ANONYMOUS) not in rows(app)
    with app.app_context():  # another old anonymous draft: within the interval, it stays
        db.session.add(Draft(learner=ANONYMOUS, exercise_id="add-numbers", code="x",
                             updated_at=utcnow() - timedelta(hours=25)))
        db.session.commit()
        db.session.remove()
    client.put("/api/exercises/add-numbers/draft", json={"code": "# newer"})
    assert ("draft", ANONYMOUS) in rows(app)


def test_the_cli_command_expires_for_cron(app):
    seed(app)
    result = app.test_cli_runner().invoke(args=["expire-anonymous"])
    assert result.exit_code == 0
    assert "deleted 1 anonymous drafts and 1 anonymous quiz attempts" in result.output
