"""tests/app/test_identity.py, run against PostgreSQL (schema from the migrations)."""

from test_identity import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
