"""tests/app's queue caps, fair order and claims, run against PostgreSQL (schema from the migrations)."""

# The running cap's claim: PostgreSQL counts racing claims of one key in turn only with the
# advisory lock (app.grading.running_cap.lock_key); SQLite's one writer does it by itself.
from tests.app.grading.test_fair_order import (  # noqa: F401
    test_a_key_at_its_running_cap_is_skipped_at_claim_and_others_are_taken,
    test_claims_racing_for_one_key_take_one_slot,
)
from tests.app.grading.test_grading_admission import *  # noqa: F403  (the same tests; this folder's conftest gives PostgreSQL)
from tests.app.grading.test_grading_claims import *  # noqa: F403
