"""A class of 30 behind one address, with 4 hostile classmates, against a real gunicorn server.

    .venv/bin/python -m bench.classroom [--minutes 10] [--learners 30] [--url URL]

Without --url it serves the platform as `make run` does (gunicorn, 1 worker, 8 threads, the
in-process grading queue, GRADER_SANDBOX as in the environment, default local) on a fresh
SQLite database in a temporary folder, with TRUSTED_PROXIES=1: every request carries the
same X-Forwarded-For, the school's NAT address. With --url it drives that server instead
(it must trust one proxy and have the accounts pupilNN@school.example with --password).

Honest learners (one thread acting, one autosaving, sharing a cookie jar like a browser tab):
log in (every 4th types the password wrong twice, every 6th mistypes the email once), save a
draft every 1.5 s, Run the code, submit (a wrong answer, later the solution), wait for the
result, read the history. A prober loads `GET /` every 0.5 s.

Hostile classmates, at the same address:
  endless:  cookie-dropping floods: every request a fresh session, alternating an endless Run
            and an endless submission (`import time; time.sleep(10**6)`), as fast as answered;
  hoarder:  an account that submits 64 KB code as fast as its limits allow and reads its
            history, each submission page and each code fragment;
  charts:   an account whose measurements return extreme numbers (1.5e305 s, speed-ups 1.0
            vs 1.0000000000000002) and reads the result pages that draw them;
  alice:    an account sending endless submissions and endless Runs as fast as its caps allow,
            beside the cookie-dropping flood from the same address: one person, two keys
            (issue 36; her account's share and her address's anonymous work are one share).

Prints refused honest requests (target 0), `GET /` p50/p95 (target p95 < 200 ms), each honest
learner's submit->result against one grading measured alone at the start, Runs, and the worst
page cost (bytes and ms) seen by anyone. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from bench.pages import largest_code  # 64 KB code, the most lines and escaping
from bench.stats import percentile
from tests.app.accounts_helpers import csrf_of  # the login form's CSRF token
from tests.app.live_server import (  # `make run`'s server (ports 7600-7699), a browser's requests
    browser_opener,
    request_from,
    start_gunicorn,
    stop_gunicorn,
)

ROOT = Path(__file__).resolve().parents[1]

CLASSROOM = "203.0.113.5"  # the school's NAT address, as the proxy forwards it
PASSWORD = "a class pass phrase"  # noqa: S105 -- the bench's own throwaway accounts
EXERCISE = "tensors-broadcast"  # light, so the class's gradings measure the platform
SLOW = "amp-measure-speed"  # the longest time limit (120 s): the worst endless Run
SLEEPER = "import time\ntime.sleep(10**6)\n"
EXTREMES = [  # what the attacker returned from time_steps
    "def time_steps(*a, **k):\n    return {'seconds': 1.5e305, 'peak_mb': None}\n",
    "import itertools\n_n = itertools.count()\n"
    "def time_steps(*a, **k):\n    return {'seconds': 1.0 if next(_n) % 2 else 1.0000000000000002, 'peak_mb': None}\n",
    "def time_steps(*a, **k):\n    return {'seconds': 1e-308, 'peak_mb': 1e308}\n",
]
AUTOSAVE_S = 1.5
PROBE_S = 0.5
POLL_S = 0.5
RESULT_WAIT_S = 600.0
RUN_WAIT_S = 30.0  # a learner waits this long for a Run's output, then presses Stop


@dataclass
class Tally:
    """Everything measured, shared by every thread (appends are atomic under the GIL)."""

    refused: Counter[str] = field(default_factory=Counter)  # honest "METHOD path-kind status"
    honest_requests: int = 0
    home_ms: list[float] = field(default_factory=list)
    results: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    runs: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    runs_stopped: int = 0
    pages: dict[str, tuple[int, float]] = field(default_factory=dict)  # kind -> worst (bytes, ms)
    hostile: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def page(self, kind: str, size: int, ms: float) -> None:
        with self.lock:
            old = self.pages.get(kind, (0, 0.0))
            self.pages[kind] = (max(old[0], size), max(old[1], ms))


def kind_of(path: str) -> str:
    """A path with its ids taken out, so pages of one kind are counted together."""
    path = path.split("?")[0]
    path = re.sub(r"/[0-9a-f]{8}-[0-9a-f-]{27}", "/<id>", path)
    return re.sub(r"/\d+(?=/|$)", "/<n>", path)


class Browser:
    """One browser (its own cookie jar, or none: a cookie-dropping client) behind the NAT."""

    def __init__(self, base: str, tally: Tally, *, honest: bool, cookies: bool = True):
        self.base, self.tally, self.honest = base, tally, honest
        self.opener = browser_opener(cookies)

    def call(self, method: str, path: str, body: dict | None = None, *, form: dict | None = None,
             timeout: float = 120) -> tuple[int, bytes]:
        request = request_from(CLASSROOM, self.base + path, method, body, form)
        started = time.perf_counter()
        try:
            with self.opener.open(request, timeout=timeout) as response:
                status, payload = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        except OSError as error:  # refused, reset or timed out: the server did not answer
            status, payload = 0, str(error).encode()
        ms = (time.perf_counter() - started) * 1000
        if method == "GET" and not path.startswith("/api/") and status == 200:
            self.tally.page(kind_of(path), len(payload), ms)
        if self.honest:
            self.tally.honest_requests += 1
            if status == 0 or status == 429 or status >= 500 or status == 403:
                self.tally.refused[f"{method} {kind_of(path)} {status}"] += 1
        return status, payload

    def json(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        status, payload = self.call(method, path, body)
        try:
            return status, json.loads(payload or b"{}")
        except ValueError:
            return status, {}

    def log_in(self, email: str, password: str) -> int:
        status, page = self.call("GET", "/login")
        if status != 200:
            return status
        token = csrf_of(page.decode("utf-8", "replace"))
        return self.call("POST", "/login", form={"csrf_token": token, "email": email, "password": password})[0]

    def wait_result(self, submission_id: str, stop: threading.Event) -> dict | None:
        deadline = time.monotonic() + RESULT_WAIT_S
        while time.monotonic() < deadline and not stop.is_set():
            status, body = self.json("GET", f"/api/submissions/{submission_id}")
            if status == 200 and body.get("status") == "done":
                return body
            time.sleep(POLL_S)
        return None


def email(n: int) -> str:
    return f"pupil{n:02d}@school.example"


def honest_learner(n: int, base: str, tally: Tally, stop: threading.Event, wrong: str, right: str,
                   password: str) -> None:
    me = Browser(base, tally, honest=True)
    time.sleep(n * 0.7)  # a class arrives over ~20 s
    if n % 6 == 0:
        me.log_in(email(n).replace("pupil", "pupl"), password)  # an email that is no account
    if n % 4 == 0:
        for _ in range(2):
            me.log_in(email(n), password + "x")  # a typo, twice
    if me.log_in(email(n), password) != 302:
        tally.refused[f"login of {email(n)} failed"] += 1
        return
    me.call("GET", f"/exercises/{EXERCISE}")
    saving = threading.Thread(target=autosave, args=(me, n, stop), daemon=True)
    saving.start()
    rounds = 0
    while not stop.is_set():
        rounds += 1
        started = time.monotonic()
        status, body = me.json("POST", f"/api/exercises/{EXERCISE}/run", {"code": right + "\nprint('hi')\n"})
        if status == 202:
            run_id, ended = body["id"], False
            while time.monotonic() - started < RUN_WAIT_S and not stop.is_set():
                _, state = me.json("GET", f"/api/runs/{run_id}")
                if state.get("status") == "done":
                    tally.runs[email(n)].append(time.monotonic() - started)
                    ended = True
                    break
                time.sleep(POLL_S)
            if not ended and not stop.is_set():
                me.json("POST", f"/api/runs/{run_id}/stop", {})
                tally.runs_stopped += 1
        if stop.wait(5):
            return
        code = wrong if rounds % 2 else right
        started = time.monotonic()
        status, body = me.json("POST", f"/api/exercises/{EXERCISE}/submissions", {"code": code})
        if status == 202 and me.wait_result(body["id"], stop) is not None:
            tally.results[email(n)].append(time.monotonic() - started)
        me.call("GET", f"/exercises/{EXERCISE}/history")
        if stop.wait(40 + (n % 5) * 5):  # reading feedback, editing
            return


def autosave(me: Browser, n: int, stop: threading.Event) -> None:
    saves = 0
    while not stop.wait(AUTOSAVE_S):
        saves += 1
        me.call("PUT", f"/api/exercises/{EXERCISE}/draft", {"code": f"# pupil {n}, save {saves}\n"})


def prober(base: str, tally: Tally, stop: threading.Event) -> None:
    me = Browser(base, tally, honest=True)
    while not stop.wait(PROBE_S):
        started = time.perf_counter()
        status, _ = me.call("GET", "/")
        if status == 200:
            tally.home_ms.append((time.perf_counter() - started) * 1000)


def endless(base: str, tally: Tally, stop: threading.Event) -> None:
    """Cookie-dropping: each request is a fresh anonymous session, sleeping code every time."""
    turn = 0
    while not stop.is_set():
        turn += 1
        what = "run" if turn % 2 else "submissions"
        status, _ = Browser(base, tally, honest=False, cookies=False).json(
            "POST", f"/api/exercises/{SLOW}/{what}", {"code": SLEEPER})
        tally.hostile[f"endless {what} {status}"] += 1
        if status != 202:
            stop.wait(0.5)


def hoarder(base: str, tally: Tally, stop: threading.Event, password: str) -> None:
    """64 KB submissions as fast as allowed, then every page that shows them."""
    me = Browser(base, tally, honest=False)
    me.log_in("hoarder@school.example", password)
    sent: list[str] = []
    variant = 0
    while not stop.is_set():
        variant += 1
        status, body = me.json("POST", f"/api/exercises/{EXERCISE}/submissions",
                               {"code": largest_code(variant)})
        tally.hostile[f"hoarder submit {status}"] += 1
        if status == 202:
            sent.append(body["id"])
        me.call("GET", f"/exercises/{EXERCISE}/history")
        for submission_id in sent[-3:]:
            me.call("GET", f"/submissions/{submission_id}")
            me.call("GET", f"/submissions/{submission_id}/code")
        stop.wait(1.0)


def charts(base: str, tally: Tally, stop: threading.Event, password: str) -> None:
    """Measurements with extreme numbers, then the pages that draw them."""
    me = Browser(base, tally, honest=False)
    me.log_in("charts@school.example", password)
    turn = 0
    while not stop.is_set():
        code = EXTREMES[turn % len(EXTREMES)]
        turn += 1
        status, body = me.json("POST", f"/api/exercises/{SLOW}/submissions", {"code": code})
        tally.hostile[f"charts submit {status}"] += 1
        if status == 202 and me.wait_result(body["id"], stop) is not None:
            for page in (f"/submissions/{body['id']}", f"/exercises/{SLOW}/history", f"/exercises/{SLOW}"):
                status, _ = me.call("GET", page)
                tally.hostile[f"charts page {status}"] += 1
        stop.wait(2.0)


def alice(base: str, tally: Tally, stop: threading.Event, password: str) -> None:
    """An account's endless submissions and Runs, as fast as its caps allow (the flood does the rest)."""
    me = Browser(base, tally, honest=False)
    me.log_in("alice@school.example", password)
    turn = 0
    while not stop.is_set():
        turn += 1
        what = "run" if turn % 2 else "submissions"
        status, _ = me.json("POST", f"/api/exercises/{SLOW}/{what}", {"code": SLEEPER})
        tally.hostile[f"alice {what} {status}"] += 1
        stop.wait(1.0)


def one_grading(base: str, tally: Tally, code: str, password: str) -> float:
    """Submit->result of one grading with nothing else going on (the sandbox warm)."""
    me = Browser(base, tally, honest=False)
    assert me.log_in("solo@school.example", password) == 302, "the bench's own account logs in"
    times = []
    for _ in range(3):  # the first may start the warm pool
        started = time.monotonic()
        status, body = me.json("POST", f"/api/exercises/{EXERCISE}/submissions", {"code": code})
        assert status == 202, body
        assert me.wait_result(body["id"], threading.Event()) is not None
        times.append(time.monotonic() - started)
        time.sleep(3)  # the pool refills
    return min(times[1:])


class Server:
    """`make run`'s gunicorn on a fresh database, with the class's accounts."""

    def __init__(self, learners: int, password: str):
        self.folder = Path(tempfile.mkdtemp(prefix="classroom-"))
        self.env = dict(os.environ, DATABASE_URL=f"sqlite:///{self.folder / 'class.db'}",
                        SECRET_KEY="classroom-bench", TRUSTED_PROXIES="1", FLASK_APP="app",  # noqa: S106
                        GRADER_SANDBOX=os.environ.get("GRADER_SANDBOX", "local"))
        venv = Path(sys.executable).parent
        subprocess.run([str(venv / "flask"), "db", "upgrade"], env=self.env, cwd=ROOT, check=True,  # noqa: S603
                       capture_output=True)
        script = ("import sys\nfrom app import create_app\nfrom app.accounts.users import create_user\n"
                  "from app.extensions import db\napp = create_app()\nwith app.app_context():\n"
                  "    for email in sys.argv[2:]:\n        create_user(email, sys.argv[1])\n"
                  "    db.session.commit()\n")
        accounts = [email(n) for n in range(learners)] + [
            "hoarder@school.example", "charts@school.example", "solo@school.example", "alice@school.example"]
        subprocess.run([sys.executable, "-c", script, password, *accounts], env=self.env, cwd=ROOT,  # noqa: S603
                       check=True, capture_output=True)
        self.log = open(self.folder / "gunicorn.log", "wb")  # noqa: SIM115 -- lives as long as the server
        self.process, self.url = start_gunicorn(ROOT, self.env, self.log)

    def queue(self) -> list[str]:
        """What the grading queue did, from the database: the fairness bound per honest grading."""
        return queue_figures(self.folder / "class.db")

    def close(self) -> None:
        stop_gunicorn(self.process)
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def queue_figures(path: Path) -> list[str]:
    """Per honest submission: flood gradings started between its submission and its own start
    (the bound of docs/scaling.md is 1: the one already running), and where the grading thread's
    time went."""
    con = sqlite3.connect(path)
    try:
        honest = {key for (key,) in con.execute("SELECT learner_key FROM users WHERE email LIKE 'pupil%'")}
        rows = con.execute("SELECT learner, anon_address, created_at, started_at, finished_at "
                           "FROM submissions").fetchall()
    finally:
        con.close()

    def at(text: str | None) -> datetime | None:
        return datetime.fromisoformat(text) if text else None

    jobs = [("honest" if learner in honest else "flood" if anon else "other", at(created), at(started), at(finished))
            for learner, anon, created, started, finished in rows]
    floods = [started for who, _, started, _ in jobs if who == "flood" and started]
    between = [sum(1 for f in floods if created < f < started)
               for who, created, started, _ in jobs if who == "honest" and started]
    end = max((moment for job in jobs for moment in job[1:] if moment), default=None)
    busy = Counter()
    for who, _, started, finished in jobs:
        if started:  # one still running at the end counts until the last moment recorded
            busy[who] += ((finished or end) - started).total_seconds()
    waiting = sum(1 for who, _, started, _ in jobs if who == "honest" and not started)
    return [f"flood gradings started between an honest submission and its start: max {max(between, default=0)}, "
            f"{Counter(between).most_common()} (bound: 1, the one already running); "
            f"honest submissions never started: {waiting}",
            "grading thread busy (s): " + ", ".join(f"{who} {seconds:.0f}" for who, seconds in busy.most_common())
            + "; gradings stored: " + ", ".join(f"{who} {n}" for who, n in Counter(j[0] for j in jobs).items())]


def report(tally: Tally, args: argparse.Namespace, one: float, load: tuple[float, ...],
           queue: list[str]) -> int:
    missed = 0
    print(f"{args.learners} honest learners + 4 hostile clients behind {CLASSROOM} for "
          f"{args.minutes:g} min; sandbox {os.environ.get('GRADER_SANDBOX', 'local')}; "
          f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    refused = sum(tally.refused.values())
    missed += refused > 0
    print(f"refused honest requests: {refused} of {tally.honest_requests} (target 0)"
          + "".join(f"\n    {count} x {what}" for what, count in tally.refused.most_common()))
    p50, p95 = percentile(tally.home_ms, 0.5), percentile(tally.home_ms, 0.95)
    missed += not p95 < 200
    print(f"GET /: p50 {p50:.0f} ms, p95 {p95:.0f} ms, max {max(tally.home_ms, default=0):.0f} ms "
          f"over {len(tally.home_ms)} probes (target p95 < 200 ms)")
    print(f"one grading alone: {one:.2f} s; each honest learner's submit->result "
          "(count, median, max, max in gradings):")
    worst = 0.0
    for learner in sorted(tally.results):
        times = tally.results[learner]
        worst = max(worst, max(times))
        print(f"    {learner}: {len(times)}, {statistics.median(times):.1f} s, {max(times):.1f} s, "
              f"{max(times) / one:.1f}x")
    missing = args.learners - len(tally.results)
    print(f"  worst {worst:.1f} s = {worst / one:.1f} gradings; learners without a result: {missing}")
    for line in queue:
        print("  " + line)
    runs = [t for times in tally.runs.values() for t in times]
    print(f"Runs: {len(runs)} answered, median {statistics.median(runs) if runs else float('nan'):.1f} s, "
          f"max {max(runs, default=float('nan')):.1f} s; {tally.runs_stopped} stopped by the learner "
          f"after {RUN_WAIT_S:g} s")
    print("worst page cost (bytes, ms) by page kind, anyone's:")
    for kind, (size, ms) in sorted(tally.pages.items(), key=lambda item: -item[1][0]):
        print(f"    {kind:<40}{size:>12,} B{ms:>9.0f} ms")
    print("hostile requests: " + ", ".join(f"{what}: {n}" for what, n in sorted(tally.hostile.items())))
    return 1 if missed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long the class works")
    parser.add_argument("--learners", type=int, default=30)
    parser.add_argument("--url", help="drive this server instead of starting one")
    parser.add_argument("--password", default=PASSWORD, help="the accounts' password (with --url)")
    args = parser.parse_args()
    if args.minutes <= 0 or args.learners <= 0:
        parser.error("--minutes and --learners must be positive")
    folder = ROOT / "exercises" / EXERCISE
    right = (folder / "solution.py").read_text(encoding="utf-8")
    wrong = (folder / "starter.py").read_text(encoding="utf-8")
    server = None if args.url else Server(args.learners, args.password)
    base = args.url.rstrip("/") if args.url else server.url
    tally, stop = Tally(), threading.Event()
    try:
        one = one_grading(base, tally, right, args.password)
        threads = [threading.Thread(target=prober, args=(base, tally, stop))]
        threads += [threading.Thread(target=honest_learner, args=(n, base, tally, stop, wrong, right,
                                                                  args.password))
                    for n in range(args.learners)]
        threads += [threading.Thread(target=endless, args=(base, tally, stop)),
                    threading.Thread(target=hoarder, args=(base, tally, stop, args.password)),
                    threading.Thread(target=charts, args=(base, tally, stop, args.password)),
                    threading.Thread(target=alice, args=(base, tally, stop, args.password))]
        for thread in threads:
            thread.daemon = True
            thread.start()
        stop.wait(args.minutes * 60)
        load = os.getloadavg()
        stop.set()
        deadline = time.monotonic() + 90  # a request still in flight ends by its own timeout
        for thread in threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        queue = server.queue() if server is not None else []
    finally:
        if server is not None:
            server.close()
    return report(tally, args, one, load, queue)


if __name__ == "__main__":
    sys.exit(main())
