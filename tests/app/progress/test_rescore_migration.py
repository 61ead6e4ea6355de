"""The rescoring migration: progress stored with the old scores is recomputed, errors are kept."""

from __future__ import annotations

import copy
from pathlib import Path

import sqlalchemy as sa
from flask_migrate import upgrade

from app import create_app
from app.extensions import db
from app.progress.records import attempts


def test_old_scores_are_recomputed_on_upgrade(tmp_path: Path, old_document: dict) -> None:
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'r.db'}", "SECRET_KEY": "r",
                      "GRADER_RECOVER_ON_START": False, "EXERCISES_DIR": str(tmp_path)})
    error = {"version": 1, "exercise": "amp-fix-the-loop", "status": "error", "score": 0.0,
             "error_kind": "syntax", "message": "bad", "tests": [], "advice": [], "output": "", "duration_s": 0}
    with app.app_context():
        upgrade(revision="i9a1s2e3s4v5")
        table = sa.table("submissions", *(sa.column(name) for name in (
            "id", "exercise_id", "learner", "code", "lang", "status", "result", "created_at")),
            sa.column("result", sa.JSON))
        with db.engine.begin() as conn:
            for number, doc in enumerate([old_document, error]):
                conn.execute(table.insert().values(
                    id=f"s{number}", exercise_id="amp-fix-the-loop", learner="u1", code="x", lang="en",
                    status="done", result=copy.deepcopy(doc), created_at=f"2026-11-30 10:0{number}:00"))
        upgrade()
        stored = {a.created_at.minute: a for a in attempts(["u1"])}
        assert stored[0].result["status"] == "fail" and abs(stored[0].score - 2 / 3) < 1e-3
        assert stored[1].result == error
        db.engine.dispose()
