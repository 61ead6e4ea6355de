"""tests/app/test_accounts.py, run against PostgreSQL (schema from the migrations)."""

from test_accounts import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
