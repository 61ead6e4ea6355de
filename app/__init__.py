"""The Learn AI with Python web app: create_app() builds it from the environment."""

from __future__ import annotations

import os
from typing import Any

import click
from flask import Flask

from app import assets, config, content, crossorigin, errors, i18n, ratelimits, security, sqlite_wal, theme
from app.accounts import login
from app.extensions import db, migrate
from app.grading import queue, regrade_cli
from app.progress import expiry, quota


def _serving() -> bool:
    """False inside a flask CLI command other than `run` (db upgrade must not start grading)."""
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        if ctx.command.name == "run":
            return True
        ctx = ctx.parent
    return click.get_current_context(silent=True) is None


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    os.makedirs(app.instance_path, exist_ok=True)
    app.config.from_mapping(config.from_environment(app.instance_path))
    if test_config:
        app.config.from_mapping(test_config)
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = config.instance_secret(app.instance_path)
    config.fix_engine_options(app.config)

    db.init_app(app)
    sqlite_wal.init_app(app)  # SQLite: readers never wait for a writer (one host's processes share it)
    migrate.init_app(app, db, directory=str(config.REPO_ROOT / "migrations"))
    i18n.init_app(app)
    theme.init_app(app)  # the header's light/dark choice, drawn from the first paint
    security.init_app(app)
    crossorigin.init_app(app)
    login.init_app(app)
    errors.init_app(app)
    content.init_app(app)
    queue.init_app(app)
    assets.init_app(app)  # fingerprinted, long-cached, compressed static files

    from app.accounts import bp as accounts_bp
    from app.api import bp as api_bp
    from app.exercises import bp as exercises_bp
    from app.instructor import bp as instructor_bp
    from app.lessons import bp as lessons_bp
    from app.progress import bp as progress_bp
    from app.quizzes import bp as quizzes_bp

    app.register_blueprint(lessons_bp)
    app.register_blueprint(exercises_bp)
    app.register_blueprint(api_bp)
    app.register_blueprint(quizzes_bp)
    app.register_blueprint(accounts_bp)
    app.register_blueprint(progress_bp)
    app.register_blueprint(instructor_bp)
    ratelimits.init_app(app)  # wraps views, so after the blueprints
    quota.init_app(app)  # wraps them again: the quota answers before any limit counts
    expiry.init_app(app)  # anonymous drafts and attempts expire at write time
    app.cli.add_command(regrade_cli.regrade_command)  # `flask regrade EXERCISE [--all]`

    if app.config["GRADER_RECOVER_ON_START"] and _serving():
        # In-process: what a stopped server left gets its threads; Celery's workers sweep their own.
        queue.warn_if_not_isolated(app)  # at start; the instructor pages say it too
        queue.recover_unfinished(app)
        if isinstance(app.extensions["grading_queue"], queue.InProcessQueue) and not app.testing:
            queue.warm_up_in_background(app)  # the first learner's grading finds a sandbox ready
    return app
