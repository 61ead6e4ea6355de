"""Fixtures for the web app: an app on a real temporary SQLite file, a client, content folders."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient

from app import create_app
from app.extensions import db
from tests.app.web_content import write_exercises, write_lessons
from tests.app.web_helpers import keyword_grader

TRANSLATIONS = Path(__file__).resolve().parents[2] / "app" / "translations"


@pytest.fixture(scope="session")
def compiled_translations(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The .po files compiled into a temporary folder: tests never depend on a build step."""
    out = tmp_path_factory.mktemp("translations")
    for po_path in TRANSLATIONS.glob("*/LC_MESSAGES/messages.po"):
        target = out / po_path.relative_to(TRANSLATIONS).with_suffix(".mo")
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
def database(tmp_path: Path) -> str:
    """The database a test's apps share: a fresh SQLite file (tests/postgres/conftest.py gives PostgreSQL)."""
    return f"sqlite:///{tmp_path / 'test.db'}"


@pytest.fixture
def make_app(database: str, content: dict[str, Path], compiled_translations: str) -> Iterator[Any]:
    """Build apps on one database; every app's worker pool is stopped at the end."""
    built: list[Flask] = []

    def build(**overrides: Any) -> Flask:
        config = {
            "TESTING": True,
            "SECRET_KEY": "test",
            "SQLALCHEMY_DATABASE_URI": database,
            "LESSONS_DIR": str(content["lessons"]),
            "EXERCISES_DIR": str(content["exercises"]),
            "GRADE_FUNCTION": keyword_grader,
            "GRADER_SANDBOX": "local",
            "BABEL_TRANSLATION_DIRECTORIES": compiled_translations,
            # The queue caps (app.grading.admission) are tested on their own; elsewhere tests
            # send bursts faster than the stand-in grader ends them.
            "GRADING_MAX_PENDING_PER_LEARNER": 1000,
            "GRADING_MAX_PENDING_PER_ANON_ADDRESS": 1000,
            # ... and the running cap (app.grading.running_cap) too: the test client's sessions
            # all share one address, one fairness key.
            "GRADING_MAX_RUNNING_PER_KEY": 1000,
            "RUN_MAX_RUNNING_PER_KEY": 1000,
            **overrides,
        }
        app = create_app(config)
        with app.app_context():
            db.create_all()  # no-op where the migrations made the tables already (PostgreSQL)
        built.append(app)
        return app

    yield build
    for app in built:
        app.extensions["grading_queue"].shutdown(wait=True)
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


@pytest.fixture
def app(make_app: Any) -> Flask:
    built: Flask = make_app()
    return built


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
