"""The Alembic migrations build the same schema as the models, and `flask db upgrade` works."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa
from flask_migrate import upgrade

from app import create_app
from app.extensions import db

REPO = Path(__file__).resolve().parents[3]


def describe(url: str) -> dict[str, object]:
    engine = sa.create_engine(url)
    inspector = sa.inspect(engine)
    tables = {}
    for name in inspector.get_table_names():
        if name == "alembic_version":
            continue
        columns = {c["name"]: (str(c["type"]), c["nullable"]) for c in inspector.get_columns(name)}
        indexes = sorted((i["name"], tuple(i["column_names"])) for i in inspector.get_indexes(name))
        tables[name] = (columns, indexes, inspector.get_pk_constraint(name)["constrained_columns"])
    engine.dispose()
    return tables


def test_migrations_match_the_models(tmp_path):
    migrated = f"sqlite:///{tmp_path / 'migrated.db'}"
    created = f"sqlite:///{tmp_path / 'created.db'}"
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": migrated})
    with app.app_context():
        upgrade()
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": created})
    with app.app_context():
        db.create_all()
    assert describe(migrated) == describe(created)
    assert "submissions" in describe(migrated)


def test_flask_db_upgrade_builds_a_fresh_database(tmp_path):
    database = tmp_path / "platform.db"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "SECRET_KEY": "x"}
    subprocess.run(
        [sys.executable, "-m", "flask", "--app", "app", "db", "upgrade"],
        cwd=REPO, env=env, check=True, capture_output=True, timeout=120,
    )
    assert "submissions" in describe(f"sqlite:///{database}")
