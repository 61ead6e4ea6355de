"""tests/app/progress/test_bounded_pages.py, run against PostgreSQL (schema from the migrations)."""

from tests.app.progress.test_bounded_pages import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
