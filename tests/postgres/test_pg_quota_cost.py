"""tests/app/progress/test_quota_cost.py, run against PostgreSQL (schema from the migrations)."""

from tests.app.progress.test_quota_cost import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
