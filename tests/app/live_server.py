"""A real gunicorn server as `make run` starts it, and browsers that speak real HTTP to it, for tests.

The server serves the tests' own lessons and exercises (tests.app.web_content, `add-numbers`
with a time limit of ENDLESS_LIMIT_S) from a fresh SQLite database, with TRUSTED_PROXIES=1 so
that each browser can stand behind the address it names (X-Forwarded-For). Ports come from
LIVE_SERVER_PORTS (default 7600-7699). LIVE_SERVER_ROOT serves another checkout's code (the
old code, to see a test fail there): only the server's code changes, not the test's.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import IO, Any

from tests.app.accounts_helpers import csrf_of
from tests.app.web_content import write_exercises, write_lessons
from tests.celery.celery_stack import wait_until

REPO = Path(__file__).resolve().parents[2]
ENDLESS = "import time\ntime.sleep(10**6)\n"
ENDLESS_LIMIT_S = 60  # add-numbers' time limit here: an endless job holds its thread this long
GOOD = "def add(a, b):\n    return a + b\n"
PASSWORD = "a class pass phrase"  # noqa: S105 -- the tests' throwaway accounts


def _ports() -> range:
    low, _sep, high = os.environ.get("LIVE_SERVER_PORTS", "7600-7699").partition("-")
    return range(int(low), int(high) + 1)


def free_port() -> int:
    for port in _ports():
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError("no free port in LIVE_SERVER_PORTS")


def start_gunicorn(root: Path, env: dict[str, str], log: IO[bytes]) -> tuple[subprocess.Popen, str]:
    """`make run`'s gunicorn (1 process, 8 threads) serving `root`'s code on a free port, once it answers."""
    url = f"http://127.0.0.1:{free_port()}"
    process = subprocess.Popen(  # noqa: S603 -- our own venv's gunicorn, as `make run`
        [str(Path(sys.executable).parent / "gunicorn"), "--workers", "1", "--threads", "8",
         "--bind", url.removeprefix("http://"), "app:create_app()"], env=env, cwd=root, stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True)

    def answers() -> bool:
        assert process.poll() is None, "gunicorn exited: see its log"
        try:
            with urllib.request.urlopen(url + "/", timeout=5) as response:  # noqa: S310
                return response.status == 200
        except OSError:
            return False

    wait_until(answers, 120, "gunicorn to answer")
    return process, url


def stop_gunicorn(process: subprocess.Popen) -> None:
    """End gunicorn and everything it started (its sandboxes): its session, TERM, then KILL."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _add_hint_ladder(folder: Path) -> None:
    """A check `adds` with a hint ladder (rungs 2 and 3), so hint reveals reach the database."""
    (folder / "tests" / "test_add.py").write_text(
        "from grader.author import check\n\n\n@check('adds')\ndef test_add():\n    pass\n", encoding="utf-8")
    (folder / "hints.toml").write_text(
        '[adds]\nconcept = { en = "Plus adds.", ja = "足します。" }\napi = { en = "`+`", ja = "`+`" }\n',
        encoding="utf-8")


class LiveServer:
    """`gunicorn --workers 1 --threads 8 'app:create_app()'` on a fresh database in `folder`."""

    def __init__(self, folder: Path, accounts: list[str] = (), *, instructors: list[str] = (), **settings: str):
        self.folder = folder
        write_lessons(folder / "lessons")
        exercises = write_exercises(folder / "exercises")
        with (exercises / "add-numbers" / "exercise.toml").open("a", encoding="utf-8") as toml:
            toml.write(f"\n[limits]\ntime_s = {ENDLESS_LIMIT_S}\n")
        _add_hint_ladder(exercises / "add-again")
        self.root = root = Path(os.environ.get("LIVE_SERVER_ROOT") or REPO)
        self.env = dict(os.environ, DATABASE_URL=f"sqlite:///{folder / 'live.db'}", SECRET_KEY="live-test",  # noqa: S106
                        TRUSTED_PROXIES="1", FLASK_APP="app", LESSONS_DIR=str(folder / "lessons"),
                        EXERCISES_DIR=str(exercises), GRADER_SANDBOX="local", GRADER_POOL_SIZE="0",
                        **settings)
        venv = Path(sys.executable).parent
        subprocess.run([str(venv / "flask"), "db", "upgrade"], env=self.env, cwd=root, check=True,  # noqa: S603
                       capture_output=True)
        for role, emails in (("learner", accounts), ("instructor", instructors)):
            if not emails:
                continue
            script = ("import sys\nfrom app import create_app\nfrom app.accounts.users import create_user\n"
                      "app = create_app()\nwith app.app_context():\n"
                      "    for email in sys.argv[3:]:\n        create_user(email, sys.argv[1], sys.argv[2])\n")
            subprocess.run([sys.executable, "-c", script, PASSWORD, role, *emails], env=self.env, cwd=root,  # noqa: S603
                           check=True, capture_output=True)
        self.log_path = folder / "gunicorn.log"
        self.log = self.log_path.open("wb")
        self.process, self.url = start_gunicorn(root, self.env, self.log)

    def logged(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        stop_gunicorn(self.process)
        self.log.close()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def browser_opener(cookies: bool) -> urllib.request.OpenerDirector:
    """A browser's opener: its own cookie jar (or none: every request a new session), no redirects."""
    handlers = [urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())] if cookies else []
    return urllib.request.build_opener(*handlers, _NoRedirect)


def request_from(address: str, url: str, method: str, body: Any = None,
                 form: dict | None = None) -> urllib.request.Request:
    """A request as a browser behind `address` sends it (a trusted proxy's X-Forwarded-For):
    JSON `body` for the API, or a `form`."""
    headers = {"X-Forwarded-For": address,
               "Accept": "application/json" if body is not None or "/api/" in url else "text/html"}
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    elif form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    return urllib.request.Request(url, data=data, method=method, headers=headers)  # noqa: S310


class Browser:
    """One browser behind `address` (its own cookie jar, or none: every request a new session)."""

    def __init__(self, server: LiveServer, address: str, *, cookies: bool = True):
        self.base, self.address = server.url, address
        self.opener = browser_opener(cookies)

    def call(self, method: str, path: str, body: Any = None, *, form: dict | None = None,
             timeout: float = 60) -> tuple[int, bytes, dict[str, str]]:
        request = request_from(self.address, self.base + path, method, body, form)
        try:
            with self.opener.open(request, timeout=timeout) as response:
                return response.status, response.read(), dict(response.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.read(), dict(error.headers)

    def json(self, method: str, path: str, body: Any = None) -> tuple[int, dict]:
        status, payload, _ = self.call(method, path, body)
        try:
            return status, json.loads(payload or b"{}")
        except ValueError:
            return status, {"raw": payload[:300].decode("utf-8", "replace")}

    def log_in(self, email: str, password: str = PASSWORD) -> tuple[int, bytes]:
        status, page, _ = self.call("GET", "/login")
        assert status == 200, status
        token = csrf_of(page.decode("utf-8", "replace"))
        status, body, _ = self.call("POST", "/login", form={"csrf_token": token, "email": email,
                                                            "password": password})
        return status, body

    def submit(self, code: str, exercise: str = "add-numbers") -> tuple[int, dict]:
        return self.json("POST", f"/api/exercises/{exercise}/submissions", {"code": code})

    def run(self, code: str, exercise: str = "add-numbers") -> tuple[int, dict]:
        return self.json("POST", f"/api/exercises/{exercise}/run", {"code": code})

    def result(self, submission_id: str, timeout: float) -> dict:
        """The submission once graded (AssertionError when it takes longer than `timeout`)."""
        def done() -> dict | None:
            status, body = self.json("GET", f"/api/submissions/{submission_id}")
            return body if status == 200 and body.get("status") == "done" else None

        return wait_until(done, timeout, f"submission {submission_id} to be graded", every=0.3)

    def run_output(self, run_id: str, timeout: float) -> dict:
        def done() -> dict | None:
            status, body = self.json("GET", f"/api/runs/{run_id}")
            return body if status == 200 and body.get("status") == "done" else None

        return wait_until(done, timeout, f"Run {run_id} to answer", every=0.3)
