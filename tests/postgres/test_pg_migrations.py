"""The Alembic chain on PostgreSQL: one head, every table, the models match, down and up again."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import downgrade, upgrade
from sqlalchemy import create_engine, inspect

from app import create_app
from app.extensions import db

TABLES = ["users", "submissions", "drafts", "quiz_attempts", "exercise_validations"]


def _app(url, tmp_path):
    return create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "pg",
                       "GRADER_RECOVER_ON_START": False, "EXERCISES_DIR": str(tmp_path)})


def test_migrations_create_every_table(migrated):
    engine = create_engine(migrated)
    names = set(inspect(engine).get_table_names())
    engine.dispose()
    assert set(TABLES) | {"alembic_version"} <= names


def test_models_match_the_migrated_schema(migrated, tmp_path):
    app = _app(migrated, tmp_path)
    with app.app_context(), db.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), db.metadata)
        db.engine.dispose()
    assert diff == []


def test_downgrade_to_base_and_upgrade_again(migrated, tmp_path):
    app = _app(migrated, tmp_path)
    with app.app_context():
        downgrade(revision="base")
        assert inspect(db.engine).get_table_names() == ["alembic_version"]
        upgrade()
        assert set(TABLES) <= set(inspect(db.engine).get_table_names())
        db.engine.dispose()
