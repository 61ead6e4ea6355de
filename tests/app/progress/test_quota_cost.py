"""The storage quota check is a sum of kept sizes read from an index: it never reads stored code."""

from __future__ import annotations

import re

from alembic.config import Config
from alembic.script import ScriptDirectory
from flask_migrate import upgrade
from sqlalchemy import event, insert, text

from app import create_app
from app.config import REPO_ROOT
from app.extensions import db
from app.models import Draft, Submission
from app.progress import quota
from tests.app.accounts_helpers import URL, signed_in
from tests.app.progress.test_bounded_pages import learner_of

READS_CODE = re.compile(r"\.code\b|\blength\(", re.IGNORECASE)


class Statements:
    """The SQL the app sends while the block runs."""

    def __init__(self, engine):
        self.engine, self.seen = engine, []

    def _record(self, _conn, _cursor, statement, parameters, *_args):
        self.seen.append((statement, parameters))

    def __enter__(self):
        event.listen(self.engine, "before_cursor_execute", self._record)
        return self

    def __exit__(self, *_exc):
        event.remove(self.engine, "before_cursor_execute", self._record)


def fill(app, learner: str, count: int, size: int) -> None:
    """`count` stored submissions of `size` bytes each, inserted in one statement."""
    with app.app_context():
        code = "#" * size
        db.session.execute(insert(Submission), [
            {"exercise_id": "add-numbers", "learner": learner, "code": code, "code_bytes": size,
             "status": "done", "result": {"status": "fail", "score": 0.0, "tests": []}}
            for _ in range(count)])
        db.session.commit()


def test_a_submission_at_a_large_history_is_checked_without_reading_code(make_app):
    app = make_app(LEARNER_STORAGE_QUOTA=16_000_000)
    client = signed_in(app, "big@example.org")
    me = learner_of(client)
    fill(app, me, 3000, 4000)  # 3000 rows, 12 MB of code plus 6 MB of overhead: over the quota
    with app.app_context(), Statements(db.engine) as sql:
        refused = client.post(URL, json={"code": "x = 1\n"})
    assert refused.status_code == 403 and refused.get_json()["error"] == "storage_quota"
    assert "16 MB" in refused.get_json()["message"]
    client.set_cookie("lang", "ja")
    assert "保存" in client.post(URL, json={"code": "x = 1\n"}).get_json()["message"]
    summing = [(s, p) for s, p in sql.seen if "sum(" in s.lower()]
    assert summing and not any(READS_CODE.search(s) for s, _ in summing), summing
    with app.app_context():
        assert quota.used_bytes(me) == 3000 * (4000 + quota.SUBMISSION_OVERHEAD)
        if db.engine.dialect.name != "sqlite":
            return  # PostgreSQL's plan depends on its statistics; the statements are checked above
        # SQLite answers the sums from the covering indexes alone: no row, so no code, is read.
        for statement, parameters in summing:
            plan = " ".join(str(row[-1]) for row in db.session.connection().exec_driver_sql(
                "EXPLAIN QUERY PLAN " + statement, parameters))
            assert "COVERING INDEX" in plan, (statement, plan)


def test_sizes_are_utf8_bytes_kept_on_every_change(make_app):
    app = make_app()
    client = signed_in(app, "kana@example.org")
    me = learner_of(client)
    assert client.put("/api/exercises/add-numbers/draft", json={"code": "あ" * 100}).status_code == 200
    assert client.post(URL, json={"code": "# 日本語\n"}).status_code == 202
    with app.app_context():
        assert db.session.scalar(db.select(Draft.code_bytes)) == 300
        assert quota.used_bytes(me) == 300 + len("# 日本語\n".encode()) + quota.SUBMISSION_OVERHEAD
    assert client.put("/api/exercises/add-numbers/draft", json={"code": "é"}).status_code == 200
    with app.app_context():
        assert db.session.scalar(db.select(Draft.code_bytes)) == 2  # the autosave's replacement
        assert quota.used_bytes(me, except_draft="add-numbers") == 12 + quota.SUBMISSION_OVERHEAD


def test_the_migration_measures_code_stored_before_it(tmp_path):
    config = Config()
    config.set_main_option("script_location", str(REPO_ROOT / "migrations"))
    before = ScriptDirectory.from_config(config).get_revision("i20c_code_bytes").down_revision
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'm.db'}", "SECRET_KEY": "m",
                      "GRADER_RECOVER_ON_START": False, "EXERCISES_DIR": str(tmp_path)})
    with app.app_context():
        upgrade(revision=before)
        with db.engine.begin() as conn:
            conn.execute(text("INSERT INTO submissions (id, exercise_id, learner, code, lang, status, "
                              "created_at, attempts) VALUES ('s1', 'e', 'k', 'ü' || 'abc', 'en', 'done', "
                              "'2026-12-01', 0)"))
            conn.execute(text("INSERT INTO drafts (learner, exercise_id, code, updated_at) "
                              "VALUES ('k', 'e', 'ああ', '2026-12-01')"))
        upgrade()
        assert quota.used_bytes("k") == 5 + quota.SUBMISSION_OVERHEAD + 6
        db.engine.dispose()
