"""Submit -> result latency through the HTTP API, cold vs warm sandboxes, local and docker.

    PYTHONPATH=$PWD .venv/bin/python bench/latency.py [-n 6] [--learners 10] [--pool-size 2]
        [--sandboxes local,docker] [--workers 2] [--port 6100]

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
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EXERCISE = "amp-train-one-epoch"
POLL_S = 0.02


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


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


def serve(sandbox: str, workers: int, port: int):
    from werkzeug.serving import make_server

    from app import create_app
    from app.extensions import db

    folder = tempfile.mkdtemp(prefix="latency-")
    app = create_app({
        "SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/bench.db",
        "GRADER_SANDBOX": sandbox, "GRADER_WORKERS": workers,
        "SUBMISSION_RATE_LIMIT": "10000/minute", "SUBMISSION_ADDRESS_RATE_LIMIT": "10000/minute",
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=6, help="sequential submissions per row")
    parser.add_argument("--learners", type=int, default=10, help="learners submitting at once")
    parser.add_argument("--pool-size", type=int, default=2, help="warm sandboxes (GRADER_POOL_SIZE)")
    parser.add_argument("--workers", type=int, default=2, help="grading threads (GRADER_WORKERS)")
    parser.add_argument("--sandboxes", default="local,docker")
    parser.add_argument("--port", type=int, default=6100)
    options = parser.parse_args()
    from grader.loader import load_exercise

    code = load_exercise(ROOT / "exercises" / EXERCISE).solution_path.read_text(encoding="utf-8")
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
