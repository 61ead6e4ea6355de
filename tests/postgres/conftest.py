"""Fixtures for PostgreSQL: the schema built by the Alembic migrations, emptied after each test.

Set TEST_DATABASE_URL (postgresql+psycopg://user:password@host/db, a database these tests may
wipe) to run them; without it every test here is skipped with that reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import create_engine, text

from app import create_app
from app.config import database_url
from app.extensions import db
from tests.app.web_content import write_exercises, write_lessons
from tests.app.web_helpers import keyword_grader

REPO = Path(__file__).resolve().parents[2]

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
    app = create_app({"SQLALCHEMY_DATABASE_URI": pg_url, "SECRET_KEY": "pg",
                      "GRADER_RECOVER_ON_START": False,
                      "EXERCISES_DIR": str(tmp_path_factory.mktemp("none"))})
    with app.app_context():
        upgrade()
        db.engine.dispose()
    return pg_url


@pytest.fixture(scope="session")
def compiled_translations(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("translations")
    for po_path in (REPO / "app" / "translations").glob("*/LC_MESSAGES/messages.po"):
        target = out / po_path.relative_to(REPO / "app" / "translations").with_suffix(".mo")
        target.parent.mkdir(parents=True)
        with po_path.open("rb") as source, target.open("wb") as sink:
            write_mo(sink, read_po(source))
    return str(out)


@pytest.fixture
def content(tmp_path: Path) -> dict[str, Path]:
    return {
        "lessons": write_lessons(tmp_path / "lessons"),
        "exercises": write_exercises(tmp_path / "exercises"),
    }


@pytest.fixture
def make_app(migrated: str, content: dict[str, Path], compiled_translations: str
             ) -> Iterator[Any]:
    """Apps on the migrated PostgreSQL database; its tables are emptied after the test."""
    built: list[Flask] = []

    def build(**overrides: Any) -> Flask:
        config = {
            "TESTING": True,
            "SECRET_KEY": "test",
            "SQLALCHEMY_DATABASE_URI": migrated,
            "LESSONS_DIR": str(content["lessons"]),
            "EXERCISES_DIR": str(content["exercises"]),
            "GRADE_FUNCTION": keyword_grader,
            "GRADER_SANDBOX": "local",
            "BABEL_TRANSLATION_DIRECTORIES": compiled_translations,
            # As in tests/app: queue caps are tested on their own (test_pg_grading.py).
            "GRADING_MAX_PENDING_PER_LEARNER": 1000,
            "GRADING_MAX_PENDING_PER_ANON_ADDRESS": 1000,
            "GRADING_MAX_RUNNING_PER_KEY": 1000,
            **overrides,
        }
        app = create_app(config)
        built.append(app)
        return app

    yield build
    for app in built:
        app.extensions["grading_queue"].shutdown(wait=True)
        app.extensions["grading_queue"].shutdown(wait=True)
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
    engine = create_engine(migrated)
    with engine.begin() as conn:
        # RESTART IDENTITY: account ids start at 1 again, as on a fresh SQLite file.
        conn.execute(text(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE"))
    engine.dispose()


@pytest.fixture
def app(make_app: Any) -> Flask:
    built: Flask = make_app()
    return built


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
