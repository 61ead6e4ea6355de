"""Fixtures for PostgreSQL: tests/app's fixtures on the schema the Alembic migrations built, emptied after each test.

Set TEST_DATABASE_URL (postgresql+psycopg://user:password@host/db, a database these tests may
wipe) to run them; without it every test here is skipped with that reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from app import create_app
from app.config import database_url
from app.extensions import db

# The same fixtures as tests/app, on the `database` below: app, client, make_app and what they use.
from tests.app.conftest import app, client, compiled_translations, content, make_app  # noqa: F401

TABLES = ["users", "submissions", "drafts", "quiz_attempts", "exercise_validations", "runs", "regrade_runs", "regrades"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        # item.path is the collected module (here), even for tests imported from tests/app.
        if here in item.path.parents:
            item.add_marker(pytest.mark.postgres)


@pytest.fixture(scope="session")
def pg_url() -> str:
    url = database_url(os.environ.get("TEST_DATABASE_URL"))
    if not url:
        pytest.skip("postgres tests skipped: set TEST_DATABASE_URL="
                    "postgresql+psycopg://USER:PASSWORD@HOST/DB (a database they may wipe)")
    assert url.startswith("postgresql+psycopg://"), "TEST_DATABASE_URL must be PostgreSQL"
    return url


def wipe(url: str) -> None:
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


@pytest.fixture(scope="session")
def migrated(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """An empty database brought to the head revision by `flask db upgrade`'s code path."""
    from flask_migrate import upgrade

    wipe(pg_url)
    migrator = create_app({"SQLALCHEMY_DATABASE_URI": pg_url, "SECRET_KEY": "pg",
                           "GRADER_RECOVER_ON_START": False,
                           "EXERCISES_DIR": str(tmp_path_factory.mktemp("none"))})
    with migrator.app_context():
        upgrade()
        db.engine.dispose()
    return pg_url


@pytest.fixture
def database(migrated: str) -> Iterator[str]:
    """The migrated PostgreSQL database for tests/app's fixtures (make_app, app, client); emptied after each test."""
    yield migrated
    engine = create_engine(migrated)
    with engine.begin() as conn:
        # RESTART IDENTITY: account ids start at 1 again, as on a fresh SQLite file.
        conn.execute(text(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE"))
    engine.dispose()
