"""Queue caps per learner and per anonymous address (429, not rate-counted), and the fair order."""

from __future__ import annotations

from app.extensions import db
from app.grading.worker import grade_next
from app.models import Submission
from tests.app.accounts_helpers import GOOD, URL, signed_in
from tests.app.grading.queues import StoppedQueue


def stopped_app(make_app, **overrides):
    return make_app(GRADING_QUEUE=lambda app: StoppedQueue(), **overrides)


def count(app, **filters):
    with app.app_context():
        return db.session.query(Submission).filter_by(**filters).count()


def test_a_learner_over_the_cap_gets_a_clear_429_and_nothing_is_stored(make_app):
    app = stopped_app(make_app, GRADING_MAX_PENDING_PER_LEARNER=2)
    ada = signed_in(app, "ada@example.org")
    assert [ada.post(URL, json={"code": GOOD}).status_code for _ in range(2)] == [202, 202]
    refused = ada.post(URL, json={"code": GOOD})
    assert refused.status_code == 429
    body = refused.get_json()
    assert body["error"] == "too_many_pending"
    assert "2 submissions waiting" in body["message"] and "Wait for one of their results" in body["message"]
    assert count(app) == 2  # the refused one left nothing behind
    ja = ada.post(URL, json={"code": GOOD}, headers={"Accept-Language": "ja"}).get_json()
    assert "採点待ち" in ja["message"] and "2" in ja["message"]
    bob = signed_in(app, "bob@example.org")
    assert bob.post(URL, json={"code": GOOD}).status_code == 202  # another learner is not held up


def test_refusals_do_not_use_up_the_rate_limit(make_app):
    app = stopped_app(make_app, GRADING_MAX_PENDING_PER_LEARNER=1, SUBMISSION_RATE_LIMIT="3/minute")
    ada = signed_in(app, "ada@example.org")
    assert ada.post(URL, json={"code": GOOD}).status_code == 202
    for _ in range(5):  # each refused by the cap
        assert ada.post(URL, json={"code": GOOD}).get_json()["error"] == "too_many_pending"
    grade_next(app)  # the pending one ends: the learner may submit again
    assert ada.post(URL, json={"code": GOOD}).status_code == 202


def test_anonymous_sessions_share_a_cap_per_address_but_accounts_do_not(make_app):
    app = stopped_app(make_app, GRADING_MAX_PENDING_PER_ANON_ADDRESS=3)
    for _ in range(3):  # a fresh cookie jar each time: a new anonymous learner
        assert app.test_client().post(URL, json={"code": GOOD}).status_code == 202
    refused = app.test_client().post(URL, json={"code": GOOD})
    assert refused.status_code == 429
    assert refused.get_json()["error"] == "too_many_pending_address"
    assert "Log in" in refused.get_json()["message"]
    assert count(app) == 3
    ada = signed_in(app, "ada@example.org")  # same address, logged in
    assert ada.post(URL, json={"code": GOOD}).status_code == 202
    assert count(app, anon_address=None) == 1  # an account's submission stores no address


def test_one_learners_backlog_does_not_hold_up_another(make_app):
    app = stopped_app(make_app)
    ada, bob, cy = (signed_in(app, f"{name}@example.org") for name in ("ada", "bob", "cy"))
    ada_ids = [ada.post(URL, json={"code": GOOD}).get_json()["id"] for _ in range(4)]
    bob_id = bob.post(URL, json={"code": GOOD}).get_json()["id"]
    order = [grade_next(app)]  # ada's first, the oldest; then bob arrives... and cy
    cy_id = cy.post(URL, json={"code": GOOD}).get_json()["id"]
    while (graded := grade_next(app)) is not None:
        order.append(graded)
    assert order[:2] == [ada_ids[0], bob_id]  # bob waited for ada's first only
    # cy came after ada's first ended: ada, served longest ago, takes her turn, then cy. cy
    # waited for one grading of ada's (the one a free worker was taking as cy arrived).
    before_cy = order[1:order.index(cy_id)]
    assert len([sid for sid in before_cy if sid in ada_ids]) <= 1
    assert sorted(order) == sorted([*ada_ids, bob_id, cy_id])
    assert count(app, status="done") == 6
