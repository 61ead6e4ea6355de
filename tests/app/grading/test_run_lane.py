"""Runs have their own lane down to the sandbox: sleeping Runs leave grading's warm sandbox and slot free."""

from __future__ import annotations

import threading
import uuid

import pytest
from werkzeug.serving import make_server

from grader.sandboxes import pool as pools
from grader.sandboxes.local_warm import local_pool
from tests.app.accounts_helpers import GOOD
from tests.app.grading.test_run_jobs import Browser, endless_code, learner_processes, wait_until

SUBMIT = "/api/exercises/add-numbers/submissions"


@pytest.mark.slow
def test_sleeping_runs_leave_gradings_flowing_and_the_site_answering(make_app, content, monkeypatch):
    """Real local sandboxes, ONE request thread: the Run lane full of endless Runs, then a grading.

    Before Runs had pools of their own, each Run took grading's idle warm sandbox: the
    grading that came next found the pool empty.
    """
    monkeypatch.setenv("GRADER_POOL_SIZE", "1")
    monkeypatch.setenv("GRADER_RUN_POOL_SIZE", "0")  # Runs start cold: fewer processes here
    with (content["exercises"] / "add-numbers" / "exercise.toml").open("a", encoding="utf-8") as toml:
        toml.write("\n[limits]\ntime_s = 120\n")  # the endless Runs outlive the test's grading
    pools.close_all()
    app = make_app(GRADE_FUNCTION=None, GRADER_WORKERS=1, RUN_WORKERS=2,
                   RUN_MAX_PENDING_PER_ANON_ADDRESS=10)
    server = make_server("127.0.0.1", 0, app, threaded=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    marker = f"# endless {uuid.uuid4().hex}\n"
    endless: list[tuple[Browser, str]] = []
    try:
        assert local_pool().wait_filled(300), "grading's warm sandbox started"
        for browser in (Browser(base), Browser(base)):
            endless.append((browser, browser.run(endless_code(marker))))
        for browser, run_id in endless:
            wait_until(lambda b=browser, r=run_id: b.state(r)["status"] == "running", 300,
                       "the endless Runs to start")
        wait_until(lambda: len(learner_processes(marker)) == 2, 300, "both Runs' learner code to sleep")
        # Both Run slots sleep; grading's warm sandbox is still idle, waiting for a grading.
        assert local_pool().idle_count() == 1
        status, page = Browser(base).call("GET", "/")
        assert status == 200 and b"<html" in page
        learner = Browser(base)
        status, sent = learner.call("POST", SUBMIT, {"code": GOOD})
        assert status == 202, sent

        def graded():
            body = learner.call("GET", f"/api/submissions/{sent['id']}")[1]
            return body if body["status"] == "done" else None

        result = wait_until(graded, 300, "the grading beside the endless Runs")["result"]
        assert result["status"] == "pass", result
        for browser, run_id in endless:
            assert browser.state(run_id)["status"] == "running"  # asleep all along
    finally:
        for browser, run_id in endless:
            browser.call("POST", f"/api/runs/{run_id}/stop", {})
        server.shutdown()
        wait_until(lambda: not learner_processes(marker), 60, "the stopped Runs to end")
        pools.close_all()
