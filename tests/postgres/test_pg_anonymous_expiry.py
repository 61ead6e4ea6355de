"""tests/app/accounts/test_anonymous_expiry.py, run against PostgreSQL (schema from the migrations)."""

from tests.app.accounts.test_anonymous_expiry import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
