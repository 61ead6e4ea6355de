"""Fairness whatever the cookies: a flood of fresh sessions from one address is one learner in the order."""

from __future__ import annotations

import re
import threading
import time

from sqlalchemy import update

from app.extensions import db
from app.grading.worker import grade_next
from app.models import Submission
from tests.app.accounts_helpers import GOOD, URL, signed_in
from tests.app.grading.queues import StoppedQueue, wait_until
from tests.app.web_helpers import keyword_grader, wait_for_done

FLOODER = "10.66.0.1"
SLEEPER = GOOD + "# sleep 0.2\n"


def browser(app, address: str):
    """A fresh browser (no cookies) at this client address."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def rows(app):
    with app.app_context():
        found = {row.id: row for row in db.session.query(Submission).all()}
        db.session.expunge_all()
        return found


def jumped(app, mine: str) -> list[str]:
    """Other jobs that started after `mine` was created and before it started."""
    found = rows(app)
    me = found[mine]
    return [sid for sid, row in found.items()
            if sid != mine and row.started_at is not None and me.created_at < row.started_at < me.started_at]


def flood(app, count: int) -> list[str]:
    """`count` submissions, each from a fresh cookie-less session of one address."""
    ids = []
    for _ in range(count):
        response = browser(app, FLOODER).post(URL, json={"code": SLEEPER})
        assert response.status_code == 202, response.get_json()
        ids.append(response.get_json()["id"])
    return ids


def test_fresh_sessions_of_one_address_take_one_turn_between_an_honest_learners_jobs(make_app):
    app = make_app(GRADING_QUEUE=lambda app: StoppedQueue())
    ada = signed_in(app, "ada@example.org")
    first = ada.post(URL, json={"code": GOOD}).get_json()["id"]
    assert grade_next(app) == first  # ada has been graded before
    flooded = flood(app, 30)
    assert grade_next(app) in flooded
    for _ in range(3):
        mine = ada.post(URL, json={"code": GOOD}).get_json()["id"]
        # One flood job (the one a free worker was taking as ada sent hers), then ada: of the
        # 30 fresh sessions, never more. (Each fresh session counting as a new learner put all
        # 30 ahead of her before.)
        assert grade_next(app) in flooded
        assert grade_next(app) == mine
        assert len(jumped(app, mine)) == 1
    # An anonymous honest learner elsewhere is one learner too, ahead of the flood's backlog.
    grade_next(app)
    bea = browser(app, "10.7.7.7")
    hers = bea.post(URL, json={"code": GOOD}).get_json()["id"]
    assert grade_next(app) in flooded  # the flood's turn had come before bea arrived
    assert grade_next(app) == hers
    assert len(jumped(app, hers)) <= 1


def test_a_never_served_learner_counts_from_their_job_not_from_the_beginning_of_time(make_app):
    """A new address (or session) cannot jump ahead of learners already waiting."""
    app = make_app(GRADING_QUEUE=lambda app: StoppedQueue())
    ada, bob = signed_in(app, "ada@example.org"), signed_in(app, "bob@example.org")
    ada_first = ada.post(URL, json={"code": GOOD}).get_json()["id"]
    assert grade_next(app) == ada_first
    bob_id = bob.post(URL, json={"code": GOOD}).get_json()["id"]
    ada_next = ada.post(URL, json={"code": GOOD}).get_json()["id"]
    newcomers = [browser(app, f"10.1.0.{n}").post(URL, json={"code": GOOD}).get_json()["id"] for n in range(5)]
    order = [grade_next(app) for _ in range(7)]
    # bob waited since before ada's turn ended; ada since her last result; the newcomers after.
    assert order == [bob_id, ada_next, *newcomers]


def test_inside_one_address_anonymous_sessions_take_turns(make_app):
    """Classmates without accounts behind one NAT: one's backlog delays another by one job at most."""
    app = make_app(GRADING_QUEUE=lambda app: StoppedQueue(), GRADING_MAX_PENDING_PER_LEARNER=10)
    busy, quiet = browser(app, FLOODER), browser(app, FLOODER)
    backlog = [busy.post(URL, json={"code": GOOD}).get_json()["id"] for _ in range(5)]
    assert grade_next(app) == backlog[0]
    hers = quiet.post(URL, json={"code": GOOD}).get_json()["id"]
    assert grade_next(app) == backlog[1]  # the one a free worker was taking as she sent hers
    assert grade_next(app) == hers
    assert len(jumped(app, hers)) == 1


def sleeping_grader(exercise, code, *, lang="en", sandbox="auto"):
    """The suite's keyword grader, sleeping first when the code asks (`# sleep S`)."""
    found = re.search(r"# sleep ([0-9.]+)", code)
    if found:
        time.sleep(float(found.group(1)))
    return keyword_grader(exercise, code, lang=lang, sandbox=sandbox)


def test_a_cookie_dropping_flood_delays_an_honest_learner_by_one_grading_on_the_real_queue(make_app):
    app = make_app(GRADER_WORKERS=1, GRADE_FUNCTION=sleeping_grader)
    ada = signed_in(app, "ada@example.org")
    wait_for_done(ada, ada.post(URL, json={"code": GOOD}).get_json()["id"])  # graded before
    stop = threading.Event()
    sent: list[str] = []

    def flooder():  # keeps about 20 queued from fresh sessions, as fast as it can
        while not stop.is_set():
            found = rows(app)
            if sum(1 for sid in sent if found[sid].status == "queued") < 20:
                sent.extend(flood(app, 5))
            time.sleep(0.05)

    thread = threading.Thread(target=flooder, daemon=True)
    thread.start()
    try:
        mine = []
        for _ in range(3):
            time.sleep(0.3)
            submission_id = ada.post(URL, json={"code": GOOD}).get_json()["id"]
            assert wait_for_done(ada, submission_id)["result"]["status"] == "pass"
            mine.append(submission_id)
    finally:
        stop.set()
        thread.join(timeout=30)
    for submission_id in mine:
        others = jumped(app, submission_id)
        assert len(others) <= 1, others  # at most the grading already running when ada sent hers
    assert any(row.status == "queued" for row in rows(app).values())  # the flood still waits


def flood_of(app, count: int, code: str) -> list[str]:
    ids = []
    for _ in range(count):
        response = browser(app, FLOODER).post(URL, json={"code": code})
        assert response.status_code == 202, response.get_json()
        ids.append(response.get_json()["id"])
    return ids


def test_a_key_at_its_running_cap_is_skipped_at_claim_and_others_are_taken(make_app):
    # GRADING_MAX_RUNNING_PER_KEY unset (0): GRADER_WORKERS - 1 = 1 running per key.
    app = make_app(GRADING_QUEUE=lambda app: StoppedQueue(), GRADER_WORKERS=2, GRADING_MAX_RUNNING_PER_KEY=0)
    from app.grading import worker

    flooded = flood(app, 3)
    with app.app_context():
        assert worker._claim(flooded[0]) is not None
        assert worker._claim(flooded[1]) is None  # the address's one running grading is taken
        assert worker.claimable_jobs(app, None) == 0
        assert worker.fair_order(app, None) == flooded[1:]  # still in line, still shown a place
    ada = signed_in(app, "ada@example.org")
    mine = ada.post(URL, json={"code": GOOD}).get_json()["id"]
    with app.app_context():
        assert worker.claimable_jobs(app, None) == 1
    assert grade_next(app) == mine  # the flood's waiting jobs are older, and may not run
    assert grade_next(app) is None
    with app.app_context():  # the flood's running one ends: its next may run
        db.session.execute(update(Submission).where(Submission.id == flooded[0])
                           .values(status="done", finished_at=Submission.started_at))
        db.session.commit()
        assert worker.claimable_jobs(app, None) == 1
    assert grade_next(app) == flooded[1]


def test_claims_racing_for_one_key_take_one_slot(make_app):
    app = make_app(GRADING_QUEUE=lambda app: StoppedQueue(), GRADER_WORKERS=8, GRADING_MAX_RUNNING_PER_KEY=2)
    from app.grading import worker

    flooded = flood(app, 8)
    start = threading.Barrier(8)
    won: list[str] = []

    def claim(submission_id):
        with app.app_context():
            start.wait()
            if worker._claim(submission_id) is not None:
                won.append(submission_id)

    threads = [threading.Thread(target=claim, args=(sid,)) for sid in flooded]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(won) == 2
    assert sum(1 for row in rows(app).values() if row.status == "running") == 2


def test_an_endless_flood_leaves_a_grading_thread_for_an_honest_learner(make_app):
    """Two grading threads, a cookie-dropping flood of sleepers from one address: the honest
    learner's grading starts while the flood's first is still running, and the flood's waiting
    jobs are taken one after another as each ends (no thread idles while one may run)."""
    app = make_app(GRADER_WORKERS=2, GRADING_MAX_RUNNING_PER_KEY=0, GRADE_FUNCTION=sleeping_grader)
    ada = signed_in(app, "ada@example.org")
    flooded = flood_of(app, 3, GOOD + "# sleep 4\n")
    wait_until(lambda: rows(app)[flooded[0]].status == "running", 60, "the flood's first grading to start")
    mine = ada.post(URL, json={"code": GOOD}).get_json()["id"]
    assert wait_for_done(ada, mine)["result"]["status"] == "pass"
    first = rows(app)[flooded[0]]
    assert rows(app)[mine].created_at > first.started_at  # sent while the flood's first ran
    assert first.finished_at is None or rows(app)[mine].started_at < first.finished_at
    # Their tokens were spent while the address was at its cap: each ending wakes a thread for
    # the next (without that, nothing in this process would ever take them).
    wait_until(lambda: all(rows(app)[sid].status == "done" for sid in flooded), 60, "the flood's gradings to end")
    found = rows(app)
    spans = sorted((found[sid].started_at, found[sid].finished_at) for sid in flooded)
    for (_, ended), (started, _) in zip(spans, spans[1:], strict=False):
        assert started >= ended  # one at a time: the address's cap of one running grading
