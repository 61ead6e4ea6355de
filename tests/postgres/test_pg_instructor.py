"""tests/app/instructor/test_instructor.py, run against PostgreSQL (schema from the migrations)."""

from tests.app.instructor.test_instructor import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
