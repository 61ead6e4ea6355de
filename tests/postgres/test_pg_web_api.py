"""tests/app/api/test_web_api.py, run against PostgreSQL: NUL bytes, big code, JSON results."""

from tests.app.api.test_web_api import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
