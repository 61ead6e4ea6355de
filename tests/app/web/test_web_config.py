"""Configuration from the environment, and the secret key kept in the instance folder."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from app.config import REPO_ROOT, from_environment, instance_secret


def test_defaults_without_environment(monkeypatch, tmp_path):
    for name in ("SECRET_KEY", "DATABASE_URL", "EXERCISES_DIR", "LESSONS_DIR",
                 "GRADER_SANDBOX", "GRADER_WORKERS"):
        monkeypatch.delenv(name, raising=False)
    config = from_environment(str(tmp_path))
    assert config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'platform.db'}"
    assert config["EXERCISES_DIR"] == str(REPO_ROOT / "exercises")
    assert config["LESSONS_DIR"] == str(REPO_ROOT / "lessons")
    assert config["GRADER_SANDBOX"] == "auto"
    assert config["GRADER_WORKERS"] == len(os.sched_getaffinity(0))  # one per core (grader.capacity)
    assert config["SECRET_KEY"] is None


def test_environment_overrides(monkeypatch, tmp_path):
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://db/platform")
    monkeypatch.setenv("GRADER_SANDBOX", "docker")
    monkeypatch.setenv("GRADER_WORKERS", "4")
    config = from_environment(str(tmp_path))
    assert config["SQLALCHEMY_DATABASE_URI"] == "postgresql+psycopg://db/platform"
    assert (config["GRADER_SANDBOX"], config["GRADER_WORKERS"]) == ("docker", 4)


def test_secret_key_is_created_once_and_private(tmp_path: Path):
    first = instance_secret(str(tmp_path))
    assert len(first) == 64
    assert instance_secret(str(tmp_path)) == first
    mode = stat.S_IMODE((tmp_path / "secret_key").stat().st_mode)
    assert mode == 0o600


def test_recovery_runs_when_serving_but_not_in_other_cli_commands():
    import click

    from app import _serving

    assert _serving()  # imported by gunicorn or a test: no click context
    with click.Context(click.Command("run")):
        assert _serving()
    with click.Context(click.Group("db")) as group, click.Context(
        click.Command("upgrade"), parent=group
    ):
        assert not _serving()  # `flask db upgrade` must not start grading
