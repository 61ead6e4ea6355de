"""tests/app/accounts/test_identity.py, run against PostgreSQL (schema from the migrations)."""

from tests.app.accounts.test_identity import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
