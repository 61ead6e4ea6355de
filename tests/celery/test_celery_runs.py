"""Runs on their own Celery queue (`-Q runs`) with the real sandbox, Stop, and fairness under cookie-dropping floods."""

from __future__ import annotations

import uuid

import pytest

from tests.celery.celery_stack import Learner, code, wait_until

pytestmark = pytest.mark.slow

RUN = "/api/exercises/add-numbers/run"
ENDLESS = "import time\ntime.sleep(10**6)\n"
REAL_RUNS = {"GRADER_POOL_SIZE": "0"}  # the real run_code; a fresh local sandbox per Run


def start_run(learner: Learner, source: str) -> str:
    status, body = learner.request("POST", RUN, {"code": source})
    assert status == 202, body
    return body["id"]


def run_state(learner: Learner, run_id: str) -> dict:
    status, body = learner.request("GET", f"/api/runs/{run_id}")
    assert status == 200, body
    return body


def test_runs_have_their_own_worker_gradings_go_on_and_stop_kills_the_sandbox(stack):
    web, workers = stack
    # The longest time limit there is: on a loaded machine the endless Run must still be
    # running when it is stopped.
    with (web.exercises / "add-numbers" / "exercise.toml").open("a", encoding="utf-8") as toml:
        toml.write("\n[limits]\ntime_s = 120\n")
    base = web.serve()
    workers.start("grader", queues="cpu")
    workers.start("runner", queues="runs", extra=REAL_RUNS)
    sleeper, other, grader_user = Learner(base), Learner(base), Learner(base)
    endless = start_run(sleeper, ENDLESS)
    wait_until(lambda: run_state(sleeper, endless)["status"] == "running", 180, "the endless Run to start")
    # The only Run slot is busy for ever: a grading goes on beside it, on its own worker...
    status, body = grader_user.submit(code(uuid.uuid4().hex))
    assert status == 202
    assert grader_user.result(body["id"], timeout=120)["result"]["status"] == "pass"
    # ... and another learner's Run waits in the Run queue, until the endless one is stopped.
    waiting = start_run(other, "print('hello from the run queue')")
    assert run_state(other, waiting)["status"] == "queued"
    status, stopped = sleeper.request("POST", f"/api/runs/{endless}/stop", {})
    assert status == 200 and stopped["result"]["error"]["kind"] == "stopped"
    done = wait_until(lambda: (s := run_state(other, waiting))["status"] == "done" and s, 180,
                      "the waiting Run")
    assert done["result"]["status"] == "ok", done
    assert done["result"]["output"] == "hello from the run queue\n"
    # The runner's sandbox was killed by the Stop (the next Run ran): never by the time limit.
    log = (web.tmp / "runner.log").read_text()
    assert "was stopped or taken over" in log, log[-3000:]


def test_a_cookie_dropping_flood_delays_an_honest_learner_by_one_grading_at_most(stack):
    web, workers = stack
    base = web.serve(TRUSTED_PROXIES=1)
    workers.start("w1")
    honest = Learner(base, address="10.0.0.7")
    status, body = honest.submit(code(uuid.uuid4().hex))
    assert status == 202
    honest.result(body["id"])  # graded before, like the logged-in learner of the report
    flood = []
    for _ in range(20):  # each from a fresh cookie-less session of one address
        status, body = Learner(base, address="10.66.0.1").submit(code(uuid.uuid4().hex, sleep=0.5))
        assert status == 202, body
        flood.append(body["id"])
    wait_until(lambda: any(e[0] == "start" for e in web.grade_events()), 30, "the flood to start")
    mine = []
    for _ in range(3):
        status, body = honest.submit(code(uuid.uuid4().hex))
        assert status == 202
        assert honest.result(body["id"], timeout=180)["result"]["status"] == "pass"
        mine.append(body["id"])

    rows = {row.id: row for row in web.rows()}
    flood_starts = [rows[sid].started_at for sid in flood if rows[sid].started_at is not None]
    for submission_id in mine:
        me = rows[submission_id]
        jumped = [t for t in flood_starts if me.created_at < t < me.started_at]
        # At most the one flood job that a free worker was already taking when this one arrived.
        assert len(jumped) <= 1, (me.created_at, me.started_at, sorted(flood_starts))
    assert any(rows[sid].status != "done" for sid in flood)  # the flood still waits behind them


def test_queued_runs_whose_tokens_redis_lost_still_run(stack):
    web, workers = stack
    base = web.serve()
    learners = [Learner(base) for _ in range(2)]
    queued = [(learner, start_run(learner, f"print('run {n}')")) for n, learner in enumerate(learners)]
    web.redis.kill()  # no `-Q runs` worker yet: both tokens were waiting in Redis, and are gone
    web.redis.start()
    workers.start("runner", queues="runs", extra=REAL_RUNS)  # its sweep publishes them again
    for n, (learner, run_id) in enumerate(queued):
        done = wait_until(lambda lr=learner, r=run_id: (s := run_state(lr, r))["status"] == "done" and s,
                          180, "a Run whose token was lost")
        assert done["result"]["output"] == f"run {n}\n", done
