"""Runs are jobs: caps (429 in en and ja), their own lane, Stop, and endless Runs never hold a web thread."""

from __future__ import annotations

import hashlib
import http.cookiejar
import json
import os
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from app.extensions import db
from app.grading import runs
from app.models import Run, Submission
from grader.api import run_code, run_stopped
from tests.app.accounts_helpers import GOOD, signed_in
from tests.app.grading.queues import StoppedQueue, wait_until

URL = "/api/exercises/add-numbers/run"
SUBMIT = "/api/exercises/add-numbers/submissions"
JA = {"Accept-Language": "ja"}
ENDLESS = "import time\ntime.sleep(10**6)\n"


def stopped_app(make_app, **overrides):
    return make_app(GRADING_QUEUE=lambda app: StoppedQueue(), **overrides)


def rows(app, model=Run, **filters):
    with app.app_context():
        found = db.session.query(model).filter_by(**filters).all()
        db.session.expunge_all()
        return found


def run_status(client, run_id):
    return client.get(f"/api/runs/{run_id}").get_json()


def test_one_run_at_a_time_per_learner_with_a_clear_429_in_en_and_ja(make_app):
    app = stopped_app(make_app)
    ada = signed_in(app, "ada@example.org")
    first = ada.post(URL, json={"code": "print(1)"})
    assert first.status_code == 202
    refused = ada.post(URL, json={"code": "print(2)"})
    assert refused.status_code == 429
    body = refused.get_json()
    assert body["error"] == "too_many_runs_pending"
    assert "already running (1 Run at a time)" in body["message"] and "Stop it" in body["message"]
    ja = ada.post(URL, json={"code": "print(2)"}, headers=JA).get_json()
    assert ja["error"] == "too_many_runs_pending"
    assert "すでに実行中" in ja["message"] and "1 件" in ja["message"]
    assert [run.id for run in rows(app)] == [first.get_json()["id"]]  # refusals left nothing
    # Runs and gradings are counted apart: a Run in progress does not stop a submission,
    # and another learner may Run.
    assert ada.post(SUBMIT, json={"code": GOOD}).status_code == 202
    assert signed_in(app, "bob@example.org").post(URL, json={"code": "print(3)"}).status_code == 202


def test_pending_gradings_do_not_stop_a_run(make_app):
    app = stopped_app(make_app, GRADING_MAX_PENDING_PER_LEARNER=1)
    ada = signed_in(app, "ada@example.org")
    assert ada.post(SUBMIT, json={"code": GOOD}).status_code == 202
    assert ada.post(SUBMIT, json={"code": GOOD}).status_code == 429  # grading's cap is full
    assert ada.post(URL, json={"code": "print(1)"}).status_code == 202


def test_anonymous_sessions_of_one_address_share_a_run_cap(make_app):
    app = stopped_app(make_app, RUN_MAX_PENDING_PER_ANON_ADDRESS=2)
    for _ in range(2):  # a fresh cookie jar each time: a new anonymous learner
        assert app.test_client().post(URL, json={"code": "print(1)"}).status_code == 202
    refused = app.test_client().post(URL, json={"code": "print(1)"})
    assert refused.status_code == 429
    assert refused.get_json()["error"] == "too_many_runs_pending_address"
    assert "Log in" in refused.get_json()["message"]
    ja = app.test_client().post(URL, json={"code": "print(1)"}, headers=JA).get_json()
    assert "ログイン" in ja["message"]
    elsewhere = app.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "10.9.8.7"  # another network: its own cap
    assert elsewhere.post(URL, json={"code": "print(1)"}).status_code == 202
    ada = signed_in(app, "ada@example.org")  # same address, logged in: not held up
    assert ada.post(URL, json={"code": "print(1)"}).status_code == 202
    assert len(rows(app)) == 4


def test_a_full_run_lane_refuses_with_a_clear_message(make_app):
    app = stopped_app(make_app, RUN_MAX_PENDING=2)
    for name in ("ada", "bob"):
        assert signed_in(app, f"{name}@example.org").post(URL, json={"code": "x"}).status_code == 202
    cy = signed_in(app, "cy@example.org")
    refused = cy.post(URL, json={"code": "x"})
    assert refused.status_code == 429 and refused.get_json()["error"] == "runs_busy"
    assert "submitting for grading still works" in refused.get_json()["message"]
    assert "採点への提出" in cy.post(URL, json={"code": "x"}, headers=JA).get_json()["message"]
    assert cy.post(SUBMIT, json={"code": GOOD}).status_code == 202


def test_cap_refusals_do_not_use_up_the_run_rate_limit(make_app):
    app = stopped_app(make_app, SUBMISSION_RATE_LIMIT="3/minute")
    ada = signed_in(app, "ada@example.org")
    first = ada.post(URL, json={"code": "print(1)"}).get_json()["id"]
    for _ in range(5):
        assert ada.post(URL, json={"code": "print(1)"}).get_json()["error"] == "too_many_runs_pending"
    assert ada.post(f"/api/runs/{first}/stop", json={}).status_code == 200
    assert ada.post(URL, json={"code": "print(1)"}).status_code == 202


def test_stop_ends_a_queued_run_at_once_and_frees_the_cap(make_app):
    app = stopped_app(make_app)
    ada = signed_in(app, "ada@example.org")
    run_id = ada.post(URL, json={"code": ENDLESS, "lang": "ja"}).get_json()["id"]
    bob = signed_in(app, "bob@example.org")
    assert bob.post(f"/api/runs/{run_id}/stop", json={}).status_code == 404  # not bob's
    assert bob.get(f"/api/runs/{run_id}").status_code == 404
    stopped = ada.post(f"/api/runs/{run_id}/stop", json={})
    assert stopped.status_code == 200
    body = stopped.get_json()
    assert body["status"] == "done" and body["result"]["error"]["kind"] == "stopped"
    assert "停止しました" in body["result"]["error"]["message"]  # the Run's own language
    assert run_status(ada, run_id)["status"] == "done"
    assert runs.run_next(app) is None  # a stopped Run is never started
    again = ada.post(f"/api/runs/{run_id}/stop", json={})  # stopping twice changes nothing
    assert again.status_code == 200 and again.get_json() == body
    assert ada.post(URL, json={"code": "print(1)"}).status_code == 202
    assert ada.get(f"/api/runs/{run_id}").status_code == 404  # the next Run forgot the old one


def test_stop_needs_a_json_body(make_app):
    app = stopped_app(make_app)
    ada = signed_in(app, "ada@example.org")
    run_id = ada.post(URL, json={"code": "x"}).get_json()["id"]
    response = ada.post(f"/api/runs/{run_id}/stop", data="x", content_type="text/plain")
    assert response.status_code == 400 and response.get_json()["error"] == "not_json"
    assert run_status(ada, run_id)["status"] == "queued"


def waits_for_cancel(started: list[str], released: threading.Event):
    """A run function that runs until its Run is stopped (or the test releases it)."""

    def run(exercise, code, *, lang="en", sandbox="auto", cancel=None):
        started.append(code)
        while not (cancel.is_set() or released.is_set()):
            cancel.wait(0.05)
        return run_stopped(lang, 0.0) if cancel.is_set() else {
            "status": "ok", "output": "released\n", "error": None, "duration_s": 0.0}

    return run


def test_runs_have_their_own_lane_both_ways(make_app):
    """A grading that never ends does not hold Runs up, and endless Runs do not hold gradings up."""
    grading_started, grading_released = threading.Event(), threading.Event()

    def slow_grader(exercise, code, *, lang="en", sandbox="auto"):
        from tests.app.web_helpers import keyword_grader

        if "# hold" in code:
            grading_started.set()
            grading_released.wait(120)
        return keyword_grader(exercise, code, lang=lang, sandbox=sandbox)

    started, released = [], threading.Event()
    app = make_app(GRADER_WORKERS=1, RUN_WORKERS=1, GRADE_FUNCTION=slow_grader,
                   RUN_FUNCTION=waits_for_cancel(started, released), RUN_WATCH_S=0.05)
    try:
        ada, bob = signed_in(app, "ada@example.org"), signed_in(app, "bob@example.org")
        held = ada.post(SUBMIT, json={"code": GOOD + "# hold\n"}).get_json()["id"]
        assert grading_started.wait(60)
        # The only grading thread is busy: a Run still starts, in its own lane.
        run_id = bob.post(URL, json={"code": "print('x')"}).get_json()["id"]
        wait_until(lambda: started, 60, "the Run to start beside the grading")
        assert run_status(bob, run_id)["status"] == "running"
        assert ada.get(f"/api/submissions/{held}").get_json()["status"] == "running"
        grading_released.set()
        # Now the only Run thread is busy with a Run that does not end: gradings go on.
        graded = bob.post(SUBMIT, json={"code": GOOD}).get_json()["id"]
        done = wait_until(lambda: (b := bob.get(f"/api/submissions/{graded}").get_json())["status"] == "done"
                          and b, 60, "a grading beside the endless Run")
        assert done["result"]["status"] == "pass"
        assert run_status(bob, run_id)["status"] == "running"
        bob.post(f"/api/runs/{run_id}/stop", json={})
    finally:
        grading_released.set()
        released.set()


def marker_file(marker: str) -> str:
    """The file endless_code() leaves in its working folder: how a jailed runner is told apart."""
    return "marker-" + hashlib.sha256(marker.encode()).hexdigest()[:16]


def endless_code(marker: str) -> str:
    """Learner code that sleeps forever, findable by learner_processes(marker) whatever its sandbox."""
    return marker + f"open({marker_file(marker)!r}, 'w').close()\n" + ENDLESS


def learner_processes(marker: str) -> list[int]:
    """Pids of learner runners whose submission holds `marker`.

    An exec'd runner names its submission on its command line (grader.runner PATH); a runner
    forked from the harness or the zygote (grader.runner_fork) is named learner-runner and
    works in the folder that holds submission.py -- or, in the job jail, in its private job
    folder, which holds no submission (its source came over the pipe) but the file that
    endless_code() writes there.
    """
    from grader.runner_fork import RUNNER_NAME

    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
            if b"grader.runner" in args:
                submission = Path(args[args.index(b"grader.runner") + 1].decode())
            elif (entry / "comm").read_bytes().strip() == RUNNER_NAME:
                folder = Path(os.readlink(entry / "cwd"))
                if (folder / marker_file(marker)).exists():
                    found.append(int(entry.name))
                    continue
                submission = folder / "submission.py"
            else:
                continue
            if marker in submission.read_text(encoding="utf-8"):
                found.append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue  # ended while we looked, or not ours to read
    return found


class Browser:
    """One browser over real HTTP: its own cookie jar."""

    def __init__(self, base: str):
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(self, method: str, path: str, body=None, timeout: float = 60):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with self.opener.open(request, timeout=timeout) as response:
                raw = response.read()
                kind = response.headers.get("Content-Type", "")
                return response.status, json.loads(raw) if "json" in kind else raw
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def run(self, code: str) -> str:
        status, body = self.call("POST", URL, {"code": code})
        assert status == 202, body
        return body["id"]

    def state(self, run_id: str) -> dict:
        status, body = self.call("GET", f"/api/runs/{run_id}")
        assert status == 200, body
        return body


@pytest.mark.slow
def test_endless_runs_never_hold_the_only_web_thread_and_stop_ends_them(make_app, content, monkeypatch):
    """A server with ONE request thread: if any request waited on learner code, nothing else would answer."""
    monkeypatch.setenv("GRADER_POOL_SIZE", "0")  # fresh sandboxes, no warm pool filling meanwhile
    # The longest time limit there is, so that on a loaded machine the endless Runs are still
    # running when they are stopped (the default 30 s can pass while the short Run starts).
    with (content["exercises"] / "add-numbers" / "exercise.toml").open("a", encoding="utf-8") as toml:
        toml.write("\n[limits]\ntime_s = 120\n")
    ended: list[dict] = []

    def recorded_run_code(*args, **kwargs):  # the real sandbox; we note when each one returns
        doc = run_code(*args, **kwargs)
        ended.append(doc)
        return doc

    app = make_app(RUN_WORKERS=3, RUN_FUNCTION=recorded_run_code, RUN_MAX_PENDING_PER_ANON_ADDRESS=10)
    server = make_server("127.0.0.1", 0, app, threaded=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        marker = f"# endless {uuid.uuid4().hex}\n"
        sleepers = [Browser(base) for _ in range(2)]
        endless = [(browser, browser.run(endless_code(marker))) for browser in sleepers]
        for browser, run_id in endless:
            wait_until(lambda b=browser, r=run_id: b.state(r)["status"] == "running", 120,
                       "the endless Runs to start")
        status, page = Browser(base).call("GET", "/")
        assert status == 200 and b"<html" in page
        other = Browser(base)
        short = other.run("print('hello')")
        result = wait_until(lambda: (s := other.state(short))["status"] == "done" and s, 300,
                            "another learner's short Run")["result"]
        assert result["status"] == "ok" and result["output"] == "hello\n", result
        for browser, run_id in endless:
            assert browser.state(run_id)["status"] == "running"  # still sleeping all along
            status, body = browser.call("POST", f"/api/runs/{run_id}/stop", {})
            assert status == 200 and body["result"]["error"]["kind"] == "stopped"
        # The sandboxes themselves were killed by the Stop, not by the 30 s time limit.
        wait_until(lambda: len(ended) == 3, 120, "the stopped sandboxes to end")
        kinds = sorted((doc["error"] or {}).get("kind", "ok") for doc in ended)
        assert kinds == ["ok", "stopped", "stopped"], ended
        # ... and with them the learner code: no runner is left asleep (it runs in a session
        # of its own, which killing the harness alone would orphan).
        wait_until(lambda: not learner_processes(marker), 30, "the stopped learner code to end")
        assert {run.status for run in rows(app)} == {"done"}
    finally:
        server.shutdown()


@pytest.mark.slow
def test_a_run_that_prints_without_end_is_bounded(make_app, monkeypatch):
    monkeypatch.setenv("GRADER_POOL_SIZE", "0")
    app = make_app()
    client = app.test_client()
    run_id = client.post(URL, json={"code": "while True:\n    print('x' * 1000)\n"}).get_json()["id"]
    body = wait_until(lambda: (s := run_status(client, run_id))["status"] == "done" and s, 300,
                      "the flooding Run to be stopped by its output limit")
    result = body["result"]
    assert result["status"] == "error" and result["error"]["kind"] == "output-limit", result
    assert len(result["output"]) <= runs.MAX_OUTPUT_CHARS + 8
    assert rows(app, Submission) == []


def echo_run(exercise, code, *, lang="en", sandbox="auto", cancel=None):
    """Stands in for the sandbox where the test is about the queue, not the code."""
    return {"status": "ok", "output": f"ran {code}\n", "error": None, "duration_s": 0.0}


def test_a_restart_ends_runs_left_running_and_runs_the_queued_ones(make_app):
    before = stopped_app(make_app)
    ada, bob = signed_in(before, "ada@example.org"), signed_in(before, "bob@example.org")
    cut_off = ada.post(URL, json={"code": "print('cut off')", "lang": "ja"}).get_json()["id"]
    waiting = bob.post(URL, json={"code": "print('waiting')"}).get_json()["id"]
    with before.app_context():
        assert runs._claim(cut_off) is not None  # its worker was a thread of the stopped server
    after = make_app(RUN_FUNCTION=echo_run)  # a new server on the same database
    with after.app_context():
        ended = db.session.get(Run, cut_off)
        assert ended.status == "done" and ended.result["error"]["kind"] == "internal"
        assert "採点システム側" in ended.result["error"]["message"]  # in the Run's language
    done = wait_until(lambda: (r := rows(after, id=waiting)) and r[0].status == "done" and r[0], 60,
                      "the queued Run to run after the restart")
    assert done.result["output"] == "ran print('waiting')\n"


def test_a_run_whose_worker_stopped_beating_is_ended_not_run_again(make_app):
    app = stopped_app(make_app, GRADING_STALE_AFTER_S=0)
    ada = signed_in(app, "ada@example.org")
    run_id = ada.post(URL, json={"code": ENDLESS}).get_json()["id"]
    with app.app_context():
        assert runs._claim(run_id) is not None
    time.sleep(0.05)  # its heartbeat is now older than the (zero) stale limit
    assert runs.end_stale(app) == [run_id]
    body = run_status(ada, run_id)
    assert body["status"] == "done" and body["result"]["error"]["kind"] == "internal"
    assert runs.run_next(app) is None  # never started again
    assert ada.post(URL, json={"code": "print(1)"}).status_code == 202  # the cap is free


def test_by_default_no_learner_or_address_can_hold_every_run_slot(make_app):
    # An endless Run holds its slot for the longest time limit (120 s). With one Run per
    # learner and per anonymous address, and at least two slots, whatever one learner or one
    # address does, an honest classmate's Run finds a free slot (bench/classroom.py: three
    # hostile anonymous clients behind the class's address used to hold both slots).
    config = make_app().config
    assert config["RUN_WORKERS"] >= 2
    assert config["RUN_MAX_PENDING_PER_LEARNER"] < config["RUN_WORKERS"]
    assert config["RUN_MAX_PENDING_PER_ANON_ADDRESS"] < config["RUN_WORKERS"]
    app = stopped_app(make_app)
    assert app.test_client().post(URL, json={"code": ENDLESS}).status_code == 202
    second = app.test_client().post(URL, json={"code": ENDLESS})  # another cookie, same address
    assert second.status_code == 429 and second.get_json()["error"] == "too_many_runs_pending_address"
    assert signed_in(app, "ada@example.org").post(URL, json={"code": "print(1)"}).status_code == 202
