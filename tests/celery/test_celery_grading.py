"""Grading on real Celery workers over a real Redis: every job once, lost workers, lost Redis, fairness."""

from __future__ import annotations

import os
import signal
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.celery.celery_stack import QUICK_TAKEOVER, Learner, code, wait_until

pytestmark = pytest.mark.slow


def slow_job_started(stack):
    """Two workers that take over quickly, and one 60 s job that one of them has started.

    Returns (learner, submission body, marker, the job's start events).
    """
    web, workers = stack
    base = web.serve()
    workers.start("w1", extra=QUICK_TAKEOVER)
    workers.start("w2", extra=QUICK_TAKEOVER)
    learner = Learner(base)
    marker = uuid.uuid4().hex
    status, body = learner.submit(code(marker, sleep=60))
    assert status == 202
    started = wait_until(lambda: [e for e in web.grade_events() if e[:2] == ("start", marker)], 30,
                         "the job to start")
    return learner, body, marker, started


def test_a_killed_pool_process_puts_its_job_back_and_it_is_graded_once(stack):
    web, _ = stack
    learner, body, marker, started = slow_job_started(stack)
    line = next(line for line in web.grade_log.read_text().splitlines() if line.startswith(f"start {marker}"))
    os.kill(int(line.split()[3]), signal.SIGKILL)  # the pool process only; its worker lives on

    result = learner.result(body["id"], timeout=180)
    assert result["result"]["status"] == "pass"
    events = [e for e in web.grade_events() if e[1] == marker]
    assert [e[0] for e in events] == ["start", "start", "done"]
    assert started[0][2] in {"w1", "w2"}
    assert "WorkerLostError" in (web.tmp / f"{started[0][2]}.log").read_text()  # Celery saw it die


def test_200_submissions_from_50_clients_are_each_graded_exactly_once(stack):
    web, workers = stack
    base = web.serve(GRADING_MAX_PENDING_PER_LEARNER=4)
    workers.start("w1", concurrency=2)
    workers.start("w2", concurrency=2)

    def one_client(_: int) -> list[tuple[str, str, dict]]:
        learner = Learner(base)
        sent = []
        for _ in range(4):
            marker = uuid.uuid4().hex
            status, body = learner.submit(code(marker))
            assert status == 202, body
            sent.append((marker, body["id"]))
        return [(marker, sid, learner.result(sid, timeout=120)) for marker, sid in sent]

    with ThreadPoolExecutor(50) as pool:
        results = [item for batch in pool.map(one_client, range(50)) for item in batch]

    assert len(results) == 200 and len({sid for _, sid, _ in results}) == 200
    assert all(body["result"]["status"] == "pass" for _, _, body in results)
    graded = Counter(marker for event, marker, _ in web.grade_events() if event == "done")
    assert set(graded) == {marker for marker, _, _ in results}
    assert set(graded.values()) == {1}, "some job was graded twice"
    assert {row.status for row in web.rows()} == {"done"}
    by_worker = Counter(event[2] for event in web.grade_events() if event[0] == "done")
    assert set(by_worker) == {"w1", "w2"}  # both hosts took part


def test_a_job_on_a_killed_worker_is_graded_by_the_other_one_and_seen_once(stack):
    web, workers = stack
    learner, body, marker, started = slow_job_started(stack)
    victim = started[0][2]
    workers.kill(victim)  # kill -9 of the whole worker (parent and pool) mid-job

    result = learner.result(body["id"], timeout=180)
    survivor = ({"w1", "w2"} - {victim}).pop()
    assert result["result"]["status"] == "pass"
    assert result["result"]["output"] == f"graded by {survivor}"
    events = [e for e in web.grade_events() if e[1] == marker]
    assert [e[0] for e in events] == ["start", "start", "done"]  # the killed one never finished
    assert events[-1][2] == survivor
    rows = [row for row in web.rows() if row.id == body["id"]]
    assert len(rows) == 1 and rows[0].status == "done"


def test_no_accepted_submission_is_lost_when_redis_restarts(stack):
    web, workers = stack
    base = web.serve(GRADING_MAX_PENDING_PER_LEARNER=10)
    workers.start("w1")
    learner = Learner(base)
    accepted = []
    for _ in range(8):
        status, body = learner.submit(code(uuid.uuid4().hex, sleep=0.3))
        assert status == 202
        accepted.append(body["id"])
    wait_until(lambda: any(e[0] == "done" for e in web.grade_events()), 30, "a first grading")

    web.redis.kill()  # every message still waiting in Redis is gone with it
    status, body = learner.submit(code(uuid.uuid4().hex))
    assert status == 503 and body["error"] == "queue_unavailable"  # refused, not half-accepted
    web.redis.start()
    for _ in range(2):
        status, body = wait_until(lambda: (r := learner.submit(code(uuid.uuid4().hex)))[0] == 202 and r,
                                  30, "submissions to be accepted again", every=0.5)
        accepted.append(body["id"])

    for submission_id in accepted:
        assert learner.result(submission_id, timeout=90)["result"]["status"] == "pass"
    graded = Counter(marker for event, marker, _ in web.grade_events() if event == "done")
    assert len(graded) == len(accepted) + 0 and set(graded.values()) == {1}
    assert len([row for row in web.rows()]) == len(accepted)  # the refused one was not kept


def test_a_flooding_learner_delays_others_by_one_grading_at_most(stack):
    web, workers = stack
    base = web.serve(GRADING_MAX_PENDING_PER_LEARNER=8)
    workers.start("w1")
    abuser = Learner(base)
    flood = []
    for _ in range(8):
        status, body = abuser.submit(code(uuid.uuid4().hex, sleep=1.0))
        assert status == 202
        flood.append(body["id"])
    # Honest learners arrive while the first sleeper runs.
    wait_until(lambda: any(e[0] == "start" for e in web.grade_events()), 30, "the flood to start")
    honest = [Learner(base) for _ in range(3)]
    sent = [(learner, learner.submit(code(uuid.uuid4().hex))[1]["id"]) for learner in honest]
    for learner, submission_id in sent:
        assert learner.result(submission_id, timeout=180)["result"]["status"] == "pass"

    rows = {row.id: row for row in web.rows()}
    flood_starts = [rows[sid].started_at for sid in flood if rows[sid].started_at is not None]
    for _, submission_id in sent:
        mine = rows[submission_id]
        jumped = [t for t in flood_starts if mine.created_at < t < mine.started_at]
        # At most the one flood job that a free worker was already picking when this one arrived.
        assert len(jumped) <= 1, (mine.created_at, mine.started_at, sorted(flood_starts))
    assert sum(1 for row in rows.values() if row.status != "done") > 0  # the flood still waits behind them


def test_an_endless_flood_leaves_a_grading_process_for_an_honest_learner(stack):
    """Two grading processes, the running cap at its default (GRADER_WORKERS - 1 = 1): a
    cookie-dropping flood of sleepers from one address holds one process, the honest learner's
    grading starts while the flood's first still runs, and each flood job that ended publishes
    the token for the next (the sweep is slowed down here, so only that can)."""
    web, workers = stack
    base = web.serve(TRUSTED_PROXIES=1)
    workers.start("w1", concurrency=2, extra={"GRADING_MAX_RUNNING_PER_KEY": "", "GRADER_WORKERS": "2",
                                              "GRADING_SWEEP_S": "600"})
    flood = []
    for _ in range(3):
        status, body = Learner(base, address="10.66.0.1").submit(code(uuid.uuid4().hex, sleep=4.0))
        assert status == 202, body
        flood.append(body["id"])
    wait_until(lambda: any(e[0] == "start" for e in web.grade_events()), 60, "the flood to start")
    honest = Learner(base, address="10.7.7.7")
    status, body = honest.submit(code(uuid.uuid4().hex))
    assert status == 202, body
    assert honest.result(body["id"], timeout=120)["result"]["status"] == "pass"
    first = min((row for row in web.rows() if row.id in flood), key=lambda row: row.started_at or row.created_at)
    mine = next(row for row in web.rows() if row.id == body["id"])
    assert first.finished_at is None or mine.started_at < first.finished_at, (mine.started_at, first.finished_at)

    wait_until(lambda: all(row.status == "done" for row in web.rows() if row.id in flood), 120,
               "the flood's waiting jobs to be taken as each one ends")
    spans = sorted((row.started_at, row.finished_at) for row in web.rows() if row.id in flood)
    for (_, ended), (started, _) in zip(spans, spans[1:], strict=False):
        assert started >= ended  # one at a time: the address's cap


def test_real_code_is_graded_by_the_real_grader_through_celery(stack, exercises_dir):
    web, workers = stack
    web.exercises = exercises_dir
    base = web.serve(EXERCISES_DIR=str(exercises_dir))
    env = {"EXERCISES_DIR": str(exercises_dir), "GRADING_TEST_GRADE_FUNCTION": ""}
    workers.start("real", extra=env)
    learner = Learner(base)
    solution = (exercises_dir / "tensors-broadcast" / "solution.py").read_text()
    status, body = learner.request("POST", "/api/exercises/tensors-broadcast/submissions", {"code": solution})
    assert status == 202, body
    result = learner.result(body["id"], timeout=180)["result"]
    assert result["status"] == "pass", result
