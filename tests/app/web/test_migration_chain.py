"""The Alembic chain on SQLite: one head, and the migrated schema equals the models."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect

from app import create_app
from app.config import REPO_ROOT
from app.extensions import db


def test_one_head():
    config = Config()
    config.set_main_option("script_location", str(REPO_ROOT / "migrations"))
    assert len(ScriptDirectory.from_config(config).get_heads()) == 1


def test_migrated_sqlite_matches_the_models_and_downgrades(tmp_path):
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'm.db'}",
                      "SECRET_KEY": "m", "GRADER_RECOVER_ON_START": False,
                      "EXERCISES_DIR": str(tmp_path)})
    with app.app_context():
        upgrade()
        with db.engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), db.metadata) == []
        assert {"users", "drafts", "exercise_validations"} <= set(
            inspect(db.engine).get_table_names())
        downgrade(revision="7c1e5a9d2b40")  # back to before accounts: the tables go
        assert "users" not in inspect(db.engine).get_table_names()
        assert "learner" not in {c["name"] for c in inspect(db.engine).get_columns("submissions")}
        db.engine.dispose()


def test_database_url_is_read_with_psycopg_3():
    from app.config import database_url

    assert database_url("postgres://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert database_url("postgresql://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert database_url("postgresql+psycopg://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert database_url("sqlite:///x.db") == "sqlite:///x.db"
    assert database_url("") is None
