"""One person, one share, over real HTTP to gunicorn as `make run` starts it (tests.app.live_server).

The attacks of issue 36: an account plus cookie-less requests from its address, endless Runs
from many addresses, a login that told which emails have accounts, hashing per address that
grew with the accounts it named, and anonymous work stored without bound.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.app.live_server import ENDLESS, ENDLESS_LIMIT_S, GOOD, Browser, LiveServer, wait_until

pytestmark = pytest.mark.slow

HOME = "198.51.100.7"  # Alice's address: her account and her cookie-less flood
ELSEWHERE = "192.0.2.9"  # Erin's and Bob's
# An honest job must be answered well before an endless one ends (ENDLESS_LIMIT_S): it did
# not wait for a thread an endless job held.
PROMPT_S = ENDLESS_LIMIT_S / 2


@pytest.fixture
def live(tmp_path: Path):
    servers: list[LiveServer] = []

    def start(accounts: list[str] = (), **settings: str) -> LiveServer:
        servers.append(LiveServer(tmp_path / f"server{len(servers)}", list(accounts), **settings))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def running(server: LiveServer, table: str) -> int:
    script = ("import sqlite3, sys\ncon = sqlite3.connect(sys.argv[1])\n"
              f"print(con.execute(\"SELECT count(*) FROM {table} WHERE status = 'running'\").fetchone()[0])\n")
    out = subprocess.run([sys.executable, "-c", script, str(server.folder / "live.db")],  # noqa: S603
                         capture_output=True, text=True, check=True)
    return int(out.stdout)


def test_an_account_and_its_address_s_cookie_less_flood_leave_a_grading_thread_free(live) -> None:
    server = live(["alice@example.org", "erin@example.org"], GRADER_WORKERS="2")
    alice = Browser(server, HOME)
    assert alice.log_in("alice@example.org")[0] == 302
    for _ in range(2):
        assert alice.submit(ENDLESS)[0] == 202
    wait_until(lambda: running(server, "submissions") == 1, 60, "Alice's first endless grading to start")
    for _ in range(4):  # a new anonymous session each time, from Alice's address
        assert Browser(server, HOME, cookies=False).submit(ENDLESS)[0] == 202
    time.sleep(3)  # a free thread would have taken a flood job by now
    erin = Browser(server, ELSEWHERE)
    assert erin.log_in("erin@example.org")[0] == 302
    started = time.monotonic()
    status, body = erin.submit(GOOD)
    assert status == 202, body
    result = erin.result(body["id"], PROMPT_S)["result"]
    assert result["status"] == "pass", result
    assert time.monotonic() - started < PROMPT_S


def test_an_account_s_endless_run_and_an_anonymous_one_from_its_address_leave_a_run_thread(live) -> None:
    server = live(["alice@example.org", "bob@example.org"], RUN_WORKERS="2")
    alice = Browser(server, HOME)
    assert alice.log_in("alice@example.org")[0] == 302
    assert alice.run(ENDLESS)[0] == 202
    wait_until(lambda: running(server, "runs") == 1, 60, "Alice's endless Run to start")
    assert Browser(server, HOME, cookies=False).run(ENDLESS)[0] == 202
    time.sleep(3)  # a free thread would have taken the anonymous Run by now
    assert_a_learner_elsewhere_runs_promptly(server)


def test_endless_runs_from_eight_anonymous_addresses_leave_a_run_thread(live) -> None:
    server = live(["bob@example.org"], RUN_WORKERS="2")
    for n in range(8):
        assert Browser(server, f"203.0.113.{10 + n}", cookies=False).run(ENDLESS)[0] == 202
    wait_until(lambda: running(server, "runs") >= 1, 60, "the endless Runs to start")
    time.sleep(3)
    assert_a_learner_elsewhere_runs_promptly(server)


def assert_a_learner_elsewhere_runs_promptly(server: LiveServer) -> None:
    bob = Browser(server, ELSEWHERE)
    assert bob.log_in("bob@example.org")[0] == 302
    started = time.monotonic()
    status, body = bob.run("print('hello')")
    assert status == 202, body
    output = bob.run_output(body["id"], PROMPT_S)["result"]
    assert output["output"] == "hello\n", output
    assert time.monotonic() - started < PROMPT_S


def _without_token(page: bytes) -> bytes:
    return re.sub(rb'value="[^"]+"', b'value=""', page)


def test_login_answers_alike_for_known_and_unknown_emails_at_and_past_the_address_limit(live) -> None:
    server = live(["known@example.org"], LOGIN_ADDRESS_RATE_LIMIT="30/minute")
    sprayer = Browser(server, HOME)
    known = sprayer.log_in("known@example.org", "a wrong guess 1")
    unknown = sprayer.log_in("nobody@example.org", "a wrong guess 1")
    assert known[0] == unknown[0] == 400 and _without_token(known[1]) == _without_token(unknown[1])
    for n in range(28):
        assert sprayer.log_in(f"nobody{n}@example.org", "a wrong guess")[0] == 400
    # The address's 31st and 32nd logins: one to an email with an account, one without.
    known, unknown = sprayer.log_in("known@example.org", "a wrong guess 2"), sprayer.log_in(
        "nobody@example.org", "a wrong guess 2")
    assert known[0] == unknown[0] == 429, (known[0], unknown[0])
    assert _without_token(known[1]) == _without_token(unknown[1])


def test_wrong_logins_to_many_known_emails_hash_at_most_the_address_limit(live) -> None:
    emails = [f"learner{n}@example.org" for n in range(12)]
    server = live(emails, LOGIN_ADDRESS_RATE_LIMIT="20/minute")
    sprayer = Browser(server, HOME)
    answers = [sprayer.log_in(email, f"wrong guess {n}")[0] for n in range(3) for email in emails]
    # Each answer other than 429 checked a password (one scrypt hash); 3 per email stays under
    # the per-email limit (5 a minute), so only the address limit can bound them.
    assert answers.count(400) == 20 and answers.count(429) == 16, answers


def test_cookie_less_hint_reveals_are_limited_per_address(live) -> None:
    server = live()
    answers = [Browser(server, HOME, cookies=False).json("POST", "/api/exercises/add-again/hints/adds/2", {})[0]
               for _ in range(31)]
    assert answers[:30] == [200] * 30 and answers[30] == 429, answers
    # Another address still has its own.
    assert Browser(server, ELSEWHERE, cookies=False).json("POST", "/api/exercises/add-again/hints/adds/2", {})[0] == 200


def test_anonymous_submissions_expire_like_drafts(live) -> None:
    server = live(ANONYMOUS_RETENTION_HOURS="0.0005")  # 1.8 s
    learner = Browser(server, HOME)
    status, body = learner.submit(GOOD)
    assert status == 202, body
    learner.result(body["id"], PROMPT_S)
    time.sleep(2.5)
    subprocess.run([str(Path(sys.executable).parent / "flask"), "expire-anonymous"], env=server.env,  # noqa: S603
                   cwd=server.root, check=True, capture_output=True)
    assert learner.json("GET", f"/api/submissions/{body['id']}")[0] == 404
