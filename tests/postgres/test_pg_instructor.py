"""tests/app/test_instructor.py, run against PostgreSQL (schema from the migrations)."""

from test_instructor import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
