"""tests/app/test_access_control.py, run against PostgreSQL (schema from the migrations)."""

from test_access_control import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
