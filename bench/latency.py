"""Submit -> result latency through the HTTP API, cold vs warm sandboxes, local and docker.

    .venv/bin/python -m bench.latency [-n 6] [--learners 10] [--pool-size 2]
        [--sandboxes local,docker] [--workers 2] [--port 6100]
    ... --mode class [--learners 30] [--think 30,90] [--duration 600] [--validate-at 120]
    ... --mode capacity [--rates 30,60,90,120,150,180] [--step 60]
    ... --mode cost [--rounds 3] [--class-duration 120] [--stress-duration 60]   (bench/sandbox_cost.py)

--mode class and --mode capacity serve the app with the defaults `make run` has (grading
threads and pool size from the host, grader.capacity) unless --workers / --pool-size say
otherwise; see bench/class_mode.py. class: --learners learners each thinking --think seconds
between a result and the next submission, for --duration seconds, and an instructor's
validation of --validate folders at --validate-at s (the app's own background runner); prints
p50, p90, max and gradings per minute, and the same during the validation and outside it.
capacity: submissions arriving at random at each of --rates per minute for --step s each,
until p90 passes 2 s; prints each step and the highest rate sustained under it.

For each sandbox and each mode (cold: GRADER_POOL_SIZE=0; warm: a pool of --pool-size) it
serves the real app (werkzeug, SQLite in a temporary folder, the in-process grading queue
with --workers threads) and measures, for amp-train-one-epoch's solution:
  - one learner at a time: POST /api/exercises/<id>/submissions, then poll
    /api/submissions/<id> every 20 ms until "done" (n submissions; in warm mode each waits
    until the pool is full again, i.e. learners a few seconds apart);
  - --learners learners submitting at the same moment (each its own session).
Prints median and p95 per row, then the warm/cold ratios. Timings are wall clock on whatever
else the machine is doing: quote medians and ratios, and the load average printed with them.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import logging
import os
import shutil
import statistics
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.stats import percentile

ROOT = Path(__file__).resolve().parents[1]
EXERCISE = "amp-train-one-epoch"
# "Check every folder now" validates all sixteen code folders (minutes); a bench run takes a few.
VALIDATE_DEFAULT = ("amp-train-one-epoch", "loop-train-epoch", "tensors-autograd")
POLL_S = 0.02


class Learner:
    """One browser: its own cookie jar (an anonymous learner of its own)."""

    def __init__(self, base: str):
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def _json(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={  # noqa: S310 -- our own http URL
            "Content-Type": "application/json", "Accept": "application/json"})
        with self.opener.open(request, timeout=300) as response:
            return response.status, json.loads(response.read() or b"{}")

    def submit_and_wait(self, code: str) -> tuple[float, dict]:
        started = time.perf_counter()
        status, sent = self._json("POST", f"/api/exercises/{EXERCISE}/submissions", {"code": code})
        assert status == 202, sent
        while True:
            _, body = self._json("GET", f"/api/submissions/{sent['id']}")
            if body.get("status") == "done":
                return time.perf_counter() - started, body["result"]
            time.sleep(POLL_S)


def note(result: dict) -> None:
    """The solution must pass; anything else is printed (a busy machine can time it out)."""
    if result["status"] != "pass":
        print(f"  not a pass: {result['status']} {result.get('error_kind')}: {result['message'][:300]}",
              flush=True)


def serve(sandbox: str, workers: int | None, port: int):
    from werkzeug.serving import make_server

    from app import create_app
    from app.extensions import db

    folder = tempfile.mkdtemp(prefix="latency-")
    app = create_app({
        "SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/bench.db",
        "GRADER_SANDBOX": sandbox, **({"GRADER_WORKERS": workers} if workers else {}),
        "SUBMISSION_RATE_LIMIT": "10000/minute", "SUBMISSION_ADDRESS_RATE_LIMIT": "10000/minute",
        # Every simulated learner is an anonymous session of 127.0.0.1: without this they would
        # share one address's 10 pending gradings, and a slower sandbox would get 429s.
        "GRADING_MAX_PENDING_PER_ANON_ADDRESS": 10000,
        # ... and one fairness key, whose running cap would grade them one at a time.
        "GRADING_MAX_RUNNING_PER_KEY": 10000,
    })
    with app.app_context():
        db.create_all()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per poll
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return app, server, thread, folder


def measure(sandbox: str, warm: bool, options: argparse.Namespace, code: str) -> dict[str, list[float]]:
    from grader.api import warm_up
    from grader.sandboxes import get_sandbox
    from grader.sandboxes import pool as pools

    pools.close_all()
    os.environ["GRADER_POOL_SIZE"] = str(options.pool_size if warm else 0)
    app, server, thread, folder = serve(sandbox, options.workers, options.port)
    base = f"http://127.0.0.1:{options.port}"
    backend = get_sandbox(sandbox)
    try:
        if warm:
            assert warm_up(sandbox, wait_s=600), "the pool did not fill"
        one: list[float] = []
        for _ in range(options.n):
            if warm:
                backend.warm_pool().wait_filled(600)
            seconds, result = Learner(base).submit_and_wait(code)
            note(result)
            one.append(seconds)
        if warm:
            backend.warm_pool().wait_filled(600)
        learners = [Learner(base) for _ in range(options.learners)]
        with ThreadPoolExecutor(max_workers=options.learners) as team:
            outcomes = list(team.map(lambda learner: learner.submit_and_wait(code), learners))
        many = [seconds for seconds, result in outcomes]
        for _, result in outcomes:
            note(result)
        return {"one": one, "many": many}
    finally:
        server.shutdown()
        thread.join(timeout=10)
        app.extensions["grading_queue"].shutdown(wait=True)
        pools.close_all()
        shutil.rmtree(folder, ignore_errors=True)  # the bench's SQLite database


def validate_folders(app: Any, folders: list[str]) -> Any:
    """A callable that asks the app's validation runner for these folders and waits for them."""
    from sqlalchemy import select

    from app.extensions import db
    from app.grading import checks
    from app.models import ExerciseValidation

    def run() -> float:
        with app.app_context():
            checks.request(app, folders)
            while True:
                rows = db.session.scalars(select(ExerciseValidation).where(
                    ExerciseValidation.exercise_id.in_(folders))).all()
                if len(rows) == len(folders) and all(row.state == "done" for row in rows):
                    print(f"  validation: {sum(1 for r in rows if r.ok)} of {len(rows)} folders ok "
                          f"{[(r.exercise_id, r.problems) for r in rows if not r.ok]}", flush=True)
                    return time.monotonic()
                db.session.rollback()  # a fresh snapshot next time
                time.sleep(0.5)
    return run


def class_or_capacity(options: argparse.Namespace, code: str) -> int:
    from bench.class_mode import report_class, run_capacity, run_class
    from grader.capacity import default_pool_size, default_workers
    from grader.sandboxes import pool as pools

    if options.pool_size is not None:
        os.environ["GRADER_POOL_SIZE"] = str(options.pool_size)
    else:
        os.environ.pop("GRADER_POOL_SIZE", None)
    print(f"grading threads {options.workers or default_workers()}, pool size "
          f"{options.pool_size if options.pool_size is not None else default_pool_size()} "
          f"(make run's defaults unless given)", flush=True)
    lines = []
    for sandbox in options.sandboxes.split(","):
        pools.close_all()
        app, server, thread, folder = serve(sandbox, options.workers, options.port)
        base = f"http://127.0.0.1:{options.port}"
        try:
            from grader.api import warm_up

            warm_up(sandbox, wait_s=600)
            if options.mode == "class":
                low, high = (float(x) for x in options.think.split(","))
                folders = [f for f in options.validate.split(",") if f]
                outcome = run_class(lambda base=base: Learner(base), code, learners=options.learners,
                                    think=(low, high), duration_s=options.duration,
                                    validate=validate_folders(app, folders) if folders else None,
                                    validate_at_s=options.validate_at)
                found = report_class(f"{sandbox:6} class of {options.learners}, think "
                                     f"{options.think} s, {options.duration:.0f} s", outcome,
                                     os.getloadavg()[0], os.cpu_count() or 1)
            else:
                rates = [float(r) for r in options.rates.split(",")]
                steps = run_capacity(lambda base=base: Learner(base), code, rates=rates,
                                     step_s=options.step, target_p90_s=2.0)
                found = [f"{sandbox:6} offered {offered:.0f}/min: achieved {achieved:.1f}/min, "
                         f"p90 {p90:.2f} s ({count} gradings)" for offered, achieved, p90, count in steps]
                held = [achieved for _, achieved, p90, _ in steps if p90 <= 2.0]
                found.append(f"{sandbox:6} capacity: {max(held) if held else 0:.1f} gradings/min "
                             f"with p90 <= 2 s (load average {os.getloadavg()[0]:.1f} on "
                             f"{os.cpu_count()} CPUs)")
            for line in found:
                print(line, flush=True)
            lines += found
        finally:
            server.shutdown()
            thread.join(timeout=10)
            app.extensions["grading_queue"].shutdown(wait=True)
            app.extensions["grading_queue"].shutdown(wait=True)
            pools.close_all()
            shutil.rmtree(folder, ignore_errors=True)
    print("\n".join(["", "summary:", *lines]))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=6, help="sequential submissions per row")
    parser.add_argument("--learners", type=int, default=10, help="learners submitting at once")
    parser.add_argument("--pool-size", type=int, default=None,
                        help="warm sandboxes (GRADER_POOL_SIZE); burst mode: 2, else the host's default")
    parser.add_argument("--workers", type=int, default=None,
                        help="grading threads (GRADER_WORKERS); burst mode: 2, else the host's default")
    parser.add_argument("--mode", choices=("burst", "class", "capacity", "cost"), default="burst")
    parser.add_argument("--class-duration", type=float, default=120, help="cost: a class window's seconds")
    parser.add_argument("--stress-duration", type=float, default=60, help="cost: a stress window's seconds")
    parser.add_argument("--rounds", type=int, default=3,
                        help="cost: rounds of alternated windows (each sandbox's class, then each one's stress)")
    parser.add_argument("--think", default="30,90", help="class: think time range, seconds")
    parser.add_argument("--duration", type=float, default=600, help="class: seconds")
    parser.add_argument("--validate", default=",".join(VALIDATE_DEFAULT),
                        help="class: folders the instructor validates ('' for none)")
    parser.add_argument("--validate-at", type=float, default=120, help="class: when, seconds")
    parser.add_argument("--rates", default="30,60,90,120,150,180", help="capacity: per minute")
    parser.add_argument("--step", type=float, default=60, help="capacity: seconds per rate")
    parser.add_argument("--sandboxes", default="local,docker")
    parser.add_argument("--port", type=int, default=6100)
    options = parser.parse_args()
    from grader.loader import load_exercise

    code = load_exercise(ROOT / "exercises" / EXERCISE).solution_path.read_text(encoding="utf-8")
    if options.mode == "cost":
        from bench.sandbox_cost import run

        return run(options, code, Learner)
    if options.mode != "burst":
        return class_or_capacity(options, code)
    options.pool_size = 2 if options.pool_size is None else options.pool_size
    options.workers = options.workers or 2
    rows = {}
    for sandbox in options.sandboxes.split(","):
        for warm in (False, True):
            label = f"{sandbox:6} {'warm' if warm else 'cold'}"
            rows[label] = measure(sandbox, warm, options, code)
            one, many = rows[label]["one"], rows[label]["many"]
            print(f"{label}: one at a time median {statistics.median(one):.2f} s, "
                  f"p95 {percentile(one, 0.95):.2f} s | {options.learners} at once median "
                  f"{statistics.median(many):.2f} s, p95 {percentile(many, 0.95):.2f} s "
                  f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)", flush=True)
    for sandbox in options.sandboxes.split(","):
        cold, warm = rows[f"{sandbox:6} cold"], rows[f"{sandbox:6} warm"]
        print(f"{sandbox}: warm/cold median, one at a time "
              f"{statistics.median(warm['one']) / statistics.median(cold['one']):.2f}, "
              f"{options.learners} at once "
              f"{statistics.median(warm['many']) / statistics.median(cold['many']):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
