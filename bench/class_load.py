"""A class at once: in-process grading vs 1 and 2 Celery workers, with one learner flooding.

    .venv/bin/python -m bench.class_load [--seconds 40] [--honest 8]

For each setup: a real redis-server and real `celery worker` processes (ports 6000-6099), the
web app served over HTTP, HONEST learners who submit correct code, wait for the result, think
a second and submit again, one ABUSER who submits sleepers as fast as the caps let them, and a
reader who loads a lesson page every 0.2 s. Grading is the stand-in of tests/celery (a sleep of
--grade-s per honest job, --abuse-s per sleeper), so the figures measure the queue, not the
sandbox. Prints throughput, honest submit->result p50/p95, lesson page p95 and lost/duplicated jobs.

    --real: real gradings instead (the grader and GRADER_SANDBOX's sandbox, default local; every
    learner, the abuser too, submits amp-train-one-epoch's solution) on a private PostgreSQL
    cluster (tests/celery/private_postgres.py), the web app on gunicorn as `make run` serves it
    (1 process, 8 threads; it grades in-process in the first setup) and the grading settings'
    defaults (heartbeat 5 s, dead after 60 s, sweep every 15 s). Each setup first grades one
    solution per grading slot and waits for it (a first grading starts the sandbox and imports
    torch), then measures. Duplicated then means graded more than once. Each setup prints the
    load average before and after it.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

from bench.stats import percentile
from tests.app.web_content import LESSONS
from tests.celery.celery_stack import Learner, Stack, Workers, code, free_port, wait_until

REPO = Path(__file__).resolve().parents[1]


REAL_EXERCISE = "amp-train-one-epoch"
# What the grading settings default to (app/config.py), not the tests' quick beats and sweeps.
REAL_TIMING = {"GRADING_HEARTBEAT_S": "5", "GRADING_STALE_AFTER_S": "60", "GRADING_SWEEP_S": "15"}


def gunicorn(stack: Stack, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """`make run`'s server (1 process, 8 threads) on a free port, configured by the environment."""
    port = free_port()
    log = (stack.tmp / "gunicorn.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "1", "--threads", "8", "--bind", f"127.0.0.1:{port}",
         "--timeout", "120", "app.wsgi:app"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        assert proc.poll() is None, (stack.tmp / "gunicorn.log").read_text()[-3000:]
        try:
            return Learner(base).opener.open(base + "/", timeout=5).status == 200
        except OSError:
            return False

    wait_until(answers, 120, "gunicorn to answer", every=0.5)
    return proc, base


def load() -> str:
    return " / ".join(f"{value:.1f}" for value in os.getloadavg())


def run(setup: str, workers_n: int, args: argparse.Namespace) -> dict[str, float | str]:
    tmp = Path(tempfile.mkdtemp(prefix=f"class-{setup}-"))
    database = None
    if args.real:
        from tests.celery.private_postgres import PrivatePostgres

        database = PrivatePostgres()
        database.create()
    stack = Stack(tmp, db_url=database.url if database else None)
    if args.real:
        stack.exercises = REPO / "exercises"
    stack.redis.start()
    os.environ.update(GRADING_TEST_LOG=str(stack.grade_log), WORKER_NAME="web")
    real = {"GRADING_TEST_GRADE_FUNCTION": "", "EXERCISES_DIR": str(stack.exercises),
            "GRADER_SANDBOX": os.environ.get("GRADER_SANDBOX", "local"), **REAL_TIMING} if args.real else {}
    workers = Workers({**stack.env(), **real}, tmp)
    web = None
    load_before = load()
    solution = (REPO / "exercises" / REAL_EXERCISE / "solution.py").read_text() if args.real else ""

    def send(me: Learner, sleep: float) -> tuple[int, dict]:
        if args.real:
            return me.request("POST", f"/api/exercises/{REAL_EXERCISE}/submissions", {"code": solution})
        return me.submit(code(uuid.uuid4().hex, sleep=sleep))

    try:
        if args.real:
            stack.build(EXERCISES_DIR=str(stack.exercises))  # the bench's own handle: tables, rows
            env = {**stack.env(), **real, "WORKER_NAME": "web", "SUBMISSION_RATE_LIMIT": "1000/minute",
                   "SUBMISSION_ADDRESS_RATE_LIMIT": "10000/minute", "GRADING_MAX_PENDING_PER_ANON_ADDRESS": "10000"}
            if not workers_n:
                env.update(CELERY_BROKER_URL="", GRADER_WORKERS="1")  # gunicorn's process grades
            web, base = gunicorn(stack, env)
            for index in range(workers_n):
                workers.start(f"w{index + 1}")
        elif workers_n:
            base = stack.serve(EXERCISES_DIR=str(stack.exercises))
            for index in range(workers_n):
                workers.start(f"w{index + 1}", extra=real)
        else:
            from tests.celery import celery_fakes

            base = stack.serve(CELERY_BROKER_URL=None, GRADE_FUNCTION=celery_fakes.grade, GRADER_WORKERS=1)
        lesson = f"/lessons/{LESSONS[0][0]:02d}-{LESSONS[0][1]}/"
        assert Learner(base).opener.open(base + lesson).status == 200
        warm_up = 0.0
        if args.real:  # measure a server that has graded before: one grading per grading slot first
            t0 = time.monotonic()
            firsts = [Learner(base) for _ in range(max(1, workers_n))]
            sent = [send(me, 0) for me in firsts]
            for me, (status, body) in zip(firsts, sent, strict=True):
                assert status == 202, body
                me.result(body["id"], timeout=600)
            warm_up = time.monotonic() - t0
        stop = threading.Event()
        accepted: list[str] = []
        latencies: list[float] = []
        pages: list[float] = []
        refused = Counter()

        def honest() -> None:
            me = Learner(base)
            while not stop.is_set():
                t0 = time.monotonic()
                status, body = send(me, args.grade_s)
                if status != 202:
                    refused[body.get("error")] += 1
                    time.sleep(1)
                    continue
                accepted.append(body["id"])
                me.result(body["id"], timeout=600)
                latencies.append(time.monotonic() - t0)
                stop.wait(1.0)

        def abuser() -> None:
            me = Learner(base)
            while not stop.is_set():
                status, body = send(me, args.abuse_s)
                if status == 202:
                    accepted.append(body["id"])
                else:
                    refused[body.get("error")] += 1
                    stop.wait(0.2)

        def reader() -> None:
            me = Learner(base)
            while not stop.is_set():
                t0 = time.monotonic()
                me.opener.open(base + lesson).read()
                pages.append(time.monotonic() - t0)
                stop.wait(0.2)

        threads = [threading.Thread(target=honest) for _ in range(args.honest)]
        threads += [threading.Thread(target=abuser), threading.Thread(target=reader)]
        def done() -> int:
            if args.real:  # counted, not read from finished_at: the window needs no clock but ours
                return sum(1 for row in stack.rows() if row.status == "done")
            return sum(1 for e in stack.grade_events() if e[0] == "done")

        done_before = done()  # the warm-up's
        started = time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(args.seconds)
        done_in_window = done() - done_before
        window = time.monotonic() - started
        stop.set()
        for thread in threads:
            thread.join()

        def drained() -> bool:
            return all(row.status == "done" for row in stack.rows())

        try:
            wait_until(drained, 300, "the queue to drain", every=0.5)
        except AssertionError:
            pass
        rows = {row.id: row for row in stack.rows()}
        graded = Counter(marker for event, marker, _ in stack.grade_events() if event == "done")
        return {
            "setup": setup,
            "gradings/min": round(done_in_window / window * 60, 1),
            "honest p50 s": round(statistics.median(latencies), 2) if latencies else float("nan"),
            "honest p95 s": round(percentile(latencies, 0.95), 2),
            "honest results": len(latencies),
            "lesson p95 ms": round(percentile(pages, 0.95) * 1000, 1),
            "accepted": len(accepted),
            "lost": sum(1 for sid in accepted if rows.get(sid) is None or rows[sid].status != "done"),
            "duplicated": (sum(1 for row in rows.values() if row.attempts > 1) if args.real
                           else sum(1 for n in graded.values() if n > 1)),
            "refused (cap)": refused.get("too_many_pending", 0),
            "warm-up s": round(warm_up, 1),
            "load before": load_before,
            "load after": load(),
        }
    finally:
        workers.stop_all()
        if web is not None:
            os.killpg(web.pid, signal.SIGTERM)
            web.wait(timeout=60)
        if stack.server is not None:
            stack.server.shutdown()
        if stack.app is not None:
            stack.app.extensions["grading_queue"].shutdown(wait=False)
        stack.redis.kill()
        if database is not None:
            database.destroy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--honest", type=int, default=8)
    parser.add_argument("--grade-s", type=float, default=0.5, help="one honest grading")
    parser.add_argument("--abuse-s", type=float, default=3.0, help="one sleeper's grading")
    parser.add_argument("--real", action="store_true", help="real amp-train-one-epoch gradings on PostgreSQL")
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request drowns the table
    results = [run("in-process (1 thread)", 0, args), run("celery, 1 worker", 1, args),
               run("celery, 2 workers", 2, args)]
    keys = list(results[0])
    width = max(len(str(r[k])) for r in results for k in keys) + 2
    if args.real:
        print(f"{args.honest} honest learners + 1 abuser for {args.seconds:.0f} s; real {REAL_EXERCISE} "
              f"gradings ({os.environ.get('GRADER_SANDBOX', 'local')} sandbox), PostgreSQL, gunicorn")
    else:
        print(f"{args.honest} honest learners + 1 abuser for {args.seconds:.0f} s; "
              f"grading {args.grade_s} s (honest), {args.abuse_s} s (abuser)")
    for key in keys:
        print(f"{key:>16}: " + "".join(f"{str(r[key]):>{max(width, 24)}}" for r in results))


if __name__ == "__main__":
    main()
