"""tests/app/regrade's job, pages and command on PostgreSQL (schema from the migrations; advisory-locked claims)."""

from tests.app.regrade.test_regrade_cli import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
from tests.app.regrade.test_regrade_job import *  # noqa: F403
from tests.app.regrade.test_regrade_pages import *  # noqa: F403
