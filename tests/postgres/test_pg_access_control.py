"""tests/app/web/test_access_control.py, run against PostgreSQL (schema from the migrations)."""

from tests.app.web.test_access_control import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
