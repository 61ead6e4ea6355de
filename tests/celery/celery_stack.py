"""Helpers for tests/celery and bench/class_load.py: redis-server, `celery worker` processes, HTTP learners.

Ports 6000-6099 (this suite's own range).
"""

from __future__ import annotations

import http.cookiejar
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.app.web_content import write_exercises, write_lessons

REPO = Path(__file__).resolve().parents[2]

# LEARNAI_TEST_PORT_BASE: where this run's ports start (engineers sharing a machine each take a range).
_ports = itertools.count(int(os.environ.get("LEARNAI_TEST_PORT_BASE") or 6000 + (os.getpid() % 5) * 20))
URL = "/api/exercises/add-numbers/submissions"


def free_port() -> int:
    for port in _ports:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError("no free port")


def wait_until(check, timeout: float, what: str, every: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class Redis:
    """A throwaway redis-server without persistence: a restart loses every queued message."""

    def __init__(self, tmp: Path):
        self.port, self.tmp, self.proc = free_port(), tmp, None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.tmp)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Our own server, not another that took the port since free_port() probed it (this
        # one then exits at once): the answer alone cannot tell them apart.
        wait_until(lambda: self.proc.poll() is not None or self.answers(), 30, "redis-server to answer")
        assert self.proc.poll() is None, f"redis-server could not start on port {self.port}"

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()


class Workers:
    """`celery worker` processes, each in its own process group so kill -9 takes all of it."""

    def __init__(self, env: dict[str, str], tmp: Path):
        self.env, self.tmp, self.procs = env, tmp, {}
        self.identities: dict[str, str] = {}  # name -> host:pid:start (sandbox container labels)

    def start(self, name: str, concurrency: int = 1, extra: dict[str, str] | None = None,
              queues: str = "cpu") -> None:
        log = (self.tmp / f"{name}.log").open("wb")
        env = {**self.env, "WORKER_NAME": name, **(extra or {})}
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "app.celery_worker", "worker", "-Q", queues,
             "-c", str(concurrency), "-n", f"{name}@%h", "--without-gossip", "--without-mingle",
             "-l", "info"],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.procs[name] = proc
        wait_until(lambda: b" ready." in (self.tmp / f"{name}.log").read_bytes() or proc.poll() is not None,
                   120, f"worker {name} to be ready", every=0.3)
        assert proc.poll() is None, (self.tmp / f"{name}.log").read_text()[-3000:]

    def kill(self, name: str) -> None:
        os.killpg(self.procs[name].pid, signal.SIGKILL)  # the machine is gone: parent and pool
        self.procs[name].wait()

    def stop_all(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


class Learner:
    """One browser: its own cookie jar, talking to the server over real HTTP."""

    def __init__(self, base: str, address: str | None = None):
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        # With TRUSTED_PROXIES=1 the app takes the client address from this header.
        self.headers = {"X-Forwarded-For": address} if address else {}

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
        status, body, _ = self.exchange(method, path, body)
        return status, json.loads(body or b"{}")

    def exchange(self, method: str, path: str, body: Any = None) -> tuple[int, bytes, dict[str, str]]:
        """(status, raw body, headers) of one request, whatever its content type."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", **self.headers})
        try:
            with self.opener.open(req, timeout=30) as response:
                return response.status, response.read(), dict(response.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.read(), dict(error.headers)

    def submit(self, code: str) -> tuple[int, dict[str, Any]]:
        return self.request("POST", URL, {"code": code})

    def result(self, submission_id: str, timeout: float = 60) -> dict[str, Any]:
        def done():
            status, body = self.request("GET", f"/api/submissions/{submission_id}")
            return body if status == 200 and body["status"] == "done" else None

        return wait_until(done, timeout, f"submission {submission_id}", every=0.5)


QUICK_TAKEOVER = {"GRADING_STALE_AFTER_S": "5"}


def code(marker: str, sleep: float = 0.0, good: bool = True) -> str:
    body = "return a + b" if good else "return a - b"
    return f"# id {marker}\n# sleep {sleep}\ndef add(a, b):\n    {body}\n"


class Stack:
    """Redis, the web app on a real port and a worker factory, all on one SQLite database."""

    def __init__(self, tmp: Path, db_url: str | None = None):
        self.tmp = tmp
        self.redis = Redis(tmp)
        self.grade_log = tmp / "grades.log"
        self.grade_log.touch()
        self.db_url = db_url or f"sqlite:///{tmp / 'class.db'}"
        self.exercises = write_exercises(tmp / "exercises")
        self.lessons = write_lessons(tmp / "lessons")
        self.server = None
        self.app = None

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(REPO),  # the app, and tests.celery.celery_fakes below
            "CELERY_BROKER_URL": self.redis.url, "DATABASE_URL": self.db_url,
            "EXERCISES_DIR": str(self.exercises), "LESSONS_DIR": str(self.lessons),
            "SECRET_KEY": "celery-tests", "GRADER_SANDBOX": "local",
            "GRADING_TEST_GRADE_FUNCTION": "tests.celery.celery_fakes:grade", "GRADING_TEST_LOG": str(self.grade_log),
            # Beats and sweeps often; the tests that kill a worker take a silent one as dead
            # after 5 s (QUICK_TAKEOVER), the others only after 30 s, so a process starved of
            # CPU on a loaded machine is not mistaken for a dead one.
            "GRADING_HEARTBEAT_S": "0.5", "GRADING_STALE_AFTER_S": "30", "GRADING_SWEEP_S": "1",
            # Every Learner here is anonymous at 127.0.0.1, one fairness key: the running cap
            # is tested on its own (test_celery_grading.py), with an empty value (its default).
            "GRADING_MAX_RUNNING_PER_KEY": "10000",
        }

    def build(self, **config: Any) -> None:
        """The app on this stack's database, tables made; serve() serves it, bench/class_load.py only reads rows."""
        from app import create_app
        from app.extensions import db

        self.app = create_app({
            "SECRET_KEY": "celery-tests", "SQLALCHEMY_DATABASE_URI": self.db_url,
            "EXERCISES_DIR": str(self.exercises), "LESSONS_DIR": str(self.lessons),
            "CELERY_BROKER_URL": self.redis.url, "GRADER_SANDBOX": "local",
            "SUBMISSION_RATE_LIMIT": "1000/minute", "SUBMISSION_ADDRESS_RATE_LIMIT": "10000/minute",
            "GRADING_MAX_PENDING_PER_ANON_ADDRESS": 10000, "RUN_MAX_PENDING_PER_ANON_ADDRESS": 10000,
            **config,
        })
        with self.app.app_context():
            db.create_all()

    def serve(self, **config: Any) -> str:
        from werkzeug.serving import make_server

        self.build(**config)
        port = free_port()
        self.server = make_server("127.0.0.1", port, self.app, threaded=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{port}"

    def grade_events(self) -> list[tuple[str, str, str]]:
        return [tuple(line.split()[:3]) for line in self.grade_log.read_text().splitlines()]

    def rows(self) -> list[Any]:
        from app.extensions import db
        from app.models import Submission

        with self.app.app_context():
            rows = db.session.query(Submission).all()
            db.session.expunge_all()
            return rows
