"""tests/app/test_quota_cost.py, run against PostgreSQL (schema from the migrations)."""

from test_quota_cost import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
