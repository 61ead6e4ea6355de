"""tests/app/progress/test_progress.py, run against PostgreSQL (schema from the migrations)."""

from tests.app.progress.test_progress import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
