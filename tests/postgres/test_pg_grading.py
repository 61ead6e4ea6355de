"""tests/app's queue caps, fair order and claims, run against PostgreSQL (schema from the migrations)."""

from tests.app.grading.test_grading_admission import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
from tests.app.grading.test_grading_claims import *  # noqa: F403
