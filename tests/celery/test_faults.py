"""The fault suite: real redis-server, real `celery worker` processes, parts killed mid-grading.

Each test prints its figures (run with -s); docs/scaling.md quotes them. Issue 21's "done when".
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from tests.celery.celery_stack import Learner, Stack, Workers, code, wait_until

pytestmark = pytest.mark.slow

LESSON = "/lessons/02-tensors/"
DRAFT = "/api/exercises/add-numbers/draft"


def figure(name: str, value: object) -> None:
    """Print a figure, and keep it for the run's summary (tests/conftest.py shows it under xdist too)."""
    line = f"FIGURE {name}: {value}"
    print(line, flush=True)
    kept = os.environ.get("LEARNAI_FAULT_FIGURES")
    if kept:
        with open(kept, "a", encoding="utf-8") as figures:
            figures.write(line + "\n")


def events(web: Stack, marker: str) -> list[tuple[str, str, float]]:
    """(event, worker, time) of one submission's gradings, in order."""
    found = []
    for line in web.grade_log.read_text().splitlines():
        event, mark, worker, _, at = line.split()[:5]
        if mark == marker:
            found.append((event, worker, float(at)))
    return found


def pool_pid(web: Stack, marker: str) -> int:
    line = next(line for line in web.grade_log.read_text().splitlines() if line.startswith(f"start {marker}"))
    return int(line.split()[3])


def check_verdict(web: Stack, exercise_id: str = "add-numbers") -> tuple[bool | None, int] | None:
    """(ok, attempts) of the folder's check once it is done; None before."""
    from app.extensions import db
    from app.models import ExerciseValidation

    with web.app.app_context():
        row = db.session.get(ExerciseValidation, exercise_id)
        found = (row.ok, row.attempts) if row is not None and row.state == "done" else None
        db.session.rollback()
        return found


def submit(learner: Learner, marker: str, **kwargs: object) -> str:
    status, body = learner.submit(code(marker, **kwargs))  # type: ignore[arg-type]
    assert status == 202, body
    return str(body["id"])


def test_a_killed_pool_process_gives_its_job_back_within_seconds(stack):
    web, workers = stack
    base = web.serve()
    # Two minutes before a silent job counts as dead: only the release can explain a quick regrade.
    slow_takeover = {"GRADING_STALE_AFTER_S": "120"}
    workers.start("w1", extra=slow_takeover)
    workers.start("w2", extra=slow_takeover)
    learner = Learner(base)
    marker = uuid.uuid4().hex
    submission_id = submit(learner, marker, sleep=60)
    wait_until(lambda: events(web, marker), 30, "the job to start")

    killed_at = time.time()
    os.kill(pool_pid(web, marker), signal.SIGKILL)  # the pool process only; its worker lives on
    result = learner.result(submission_id, timeout=60)

    seen = events(web, marker)
    again = seen[1][2] - killed_at
    figure("pool process kill -9 -> graded again after", f"{again:.2f} s (done {seen[-1][2] - killed_at:.2f} s)")
    assert result["result"]["status"] == "pass"
    assert [event for event, _, _ in seen] == ["start", "start", "done"]
    assert again < 10, "the job waited for the heartbeat limit instead of coming back at once"


def test_a_killed_worker_s_job_is_taken_over_after_the_heartbeat_limit(stack):
    web, workers = stack
    base = web.serve()
    limit = 5.0
    quick = {"GRADING_STALE_AFTER_S": str(limit)}
    workers.start("w1", extra=quick)
    workers.start("w2", extra=quick)
    learner = Learner(base)
    marker = uuid.uuid4().hex
    submission_id = submit(learner, marker, sleep=60)
    victim = wait_until(lambda: events(web, marker), 30, "the job to start")[0][1]

    killed_at = time.time()
    workers.kill(victim)  # kill -9 of the whole worker, parent and pool
    result = learner.result(submission_id, timeout=90)

    seen = events(web, marker)
    again = seen[1][2] - killed_at
    figure("whole worker kill -9 -> graded again after", f"{again:.2f} s (heartbeat limit {limit:.0f} s, "
           f"sweep every 1 s)")
    assert result["result"]["status"] == "pass"
    assert [event for event, _, _ in seen] == ["start", "start", "done"]
    assert seen[-1][1] != victim
    assert again < limit + 10


def test_a_killed_worker_s_delivery_never_hides_a_lost_token(stack):
    """After a worker died and its job was taken over, a token that goes missing is still put back.

    The dead worker's delivery stays in kombu's unacked hash until the visibility timeout (an
    hour); its job is graded under another token. Counted as a token "on its way", it hid the
    next lost token for that hour, and a job waited with every worker idle.
    """
    web, workers = stack
    base = web.serve()
    quick = {"GRADING_STALE_AFTER_S": "5"}
    workers.start("victim", extra=quick)
    learner = Learner(base)
    taken_over = uuid.uuid4().hex
    first = submit(learner, taken_over, sleep=60)
    wait_until(lambda: events(web, taken_over), 30, "the job to start")
    workers.start("w2", extra=quick)
    workers.kill("victim")  # kill -9 of the whole worker: its delivery stays unacknowledged
    assert learner.result(first, timeout=90)["result"]["status"] == "pass"
    queue = web.app.extensions["grading_queue"]
    assert len(queue.reserved("cpu")) == 1, "the dead worker's delivery is still in kombu's unacked hash"

    busy, lost = uuid.uuid4().hex, uuid.uuid4().hex
    submit(learner, busy, sleep=3)  # w2 grades it, and holds no other token meanwhile (prefetch 1)
    wait_until(lambda: events(web, busy), 30, "w2 to be busy")
    waiting = submit(learner, lost)
    with queue.celery.connection_for_write() as connection:  # its token goes missing
        assert connection.default_channel.client.delete("cpu") == 1
    busy_done = wait_until(lambda: [at for event, _, at in events(web, busy) if event == "done"], 30,
                           "the busy job to end")[0]
    result = learner.result(waiting, timeout=30)

    started = events(web, lost)[0][2]
    figure("token lost after a worker's kill -9 and takeover -> graded after the worker was free",
           f"{started - busy_done:.2f} s (sweep every 1 s)")
    assert result["result"]["status"] == "pass"
    assert started - busy_done < 1 + 5, "the lost token was not put back within a sweep"


def test_a_check_on_a_killed_worker_is_taken_over_and_never_holds_a_grading_worker(stack):
    """Folder checks are the background lane's (`-Q background` workers): a checker's kill -9
    mid-check hands the check to another checker after the heartbeat limit, and a learner's
    grading sent while the check runs is graded at once by the grading worker, never behind it."""
    from app.grading import checks

    web, workers = stack
    base = web.serve()
    quick = {"GRADING_STALE_AFTER_S": "5", "GRADING_TEST_CHECK_FUNCTION": "tests.celery.celery_fakes:check"}
    workers.start("checker-1", queues="background", extra=quick)
    workers.start("grader", extra=quick)
    with web.app.app_context():
        assert checks.request(web.app, ["add-numbers"]) == ["add-numbers"]
    victim = wait_until(lambda: events(web, "check-add-numbers"), 30, "the check to start")[0][1]
    learner = Learner(base)
    graded = uuid.uuid4().hex
    sent_at = time.time()
    submission_id = submit(learner, graded)
    assert learner.result(submission_id, timeout=30)["result"]["status"] == "pass"
    waited = events(web, graded)[0][2] - sent_at
    figure("a learner's grading sent while a check runs -> started after", f"{waited:.2f} s")
    assert victim == "checker-1" and waited < 5, "a learner's grading waited for a folder check"

    workers.start("checker-2", queues="background", extra=quick)
    killed_at = time.time()
    workers.kill(victim)
    assert wait_until(lambda: check_verdict(web), 90, "the check to be taken over") == (True, 2)
    again = events(web, "check-add-numbers")[1]
    figure("whole checker kill -9 mid-check -> checked again after",
           f"{again[2] - killed_at:.2f} s (heartbeat limit 5 s)")
    assert again[1] == "checker-2" and again[2] - killed_at < 5 + 10


def test_a_job_that_keeps_killing_its_grader_ends_after_n_attempts(stack):
    web, workers = stack
    base = web.serve()
    workers.start("w1", extra={"GRADING_MAX_ATTEMPTS": "3", "GRADING_STALE_AFTER_S": "120"})
    learner = Learner(base)
    started = time.time()
    ids = {}
    for lang in ("en", "ja"):
        marker = uuid.uuid4().hex
        status, body = learner.request("POST", "/api/exercises/add-numbers/submissions",
                                       {"code": code(marker) + "# poison\n", "lang": lang})
        assert status == 202, body
        ids[lang] = (marker, body["id"])
    results = {lang: learner.result(sid, timeout=120)["result"] for lang, (_, sid) in ids.items()}
    elapsed = time.time() - started

    tries = {lang: len(events(web, marker)) for lang, (marker, _) in ids.items()}
    figure("poison job: gradings before it ended", f"{tries} in {elapsed:.1f} s for both")
    figure("poison job: message (en)", results["en"]["message"])
    assert tries == {"en": 3, "ja": 3}
    assert results["en"]["status"] == "error" and "stopped the grader 3 times" in results["en"]["message"]
    assert "3 回" in results["ja"]["message"]
    # The worker is still there and grades the next submission.
    assert learner.result(submit(learner, uuid.uuid4().hex), timeout=60)["result"]["status"] == "pass"


def _faketime(offset: str) -> dict[str, str]:
    libfaketime = pytest.importorskip("libfaketime", reason="pip install libfaketime (a dev dependency)")
    library = Path(libfaketime.__file__).parent / "vendor" / "libfaketime" / "src" / "libfaketime.so.1"
    return {"LD_PRELOAD": str(library), "FAKETIME": offset, "DONT_FAKE_MONOTONIC": "1"}


def test_a_worker_whose_clock_is_5_minutes_off_reclaims_nothing_live(postgres_stack):
    # PostgreSQL: hosts share the database, not a clock (SQLite's clock is its process's own).
    web, workers, _ = postgres_stack
    base = web.serve(GRADING_MAX_PENDING_PER_LEARNER=10)
    workers.start("on-time")
    workers.start("ahead", extra=_faketime("+5m"))
    workers.start("behind", extra=_faketime("-5m"))
    clock = subprocess.run(["date", "-u", "+%H:%M:%S"], env={**os.environ, **_faketime("+5m")},
                           capture_output=True, text=True).stdout.strip()
    figure("clock of the worker 'ahead' vs this host", f"{clock} vs {time.strftime('%H:%M:%S', time.gmtime())}")
    learner = Learner(base)
    markers = [uuid.uuid4().hex for _ in range(3)]
    ids = [submit(learner, marker, sleep=12) for marker in markers]  # 12 s: 24 heartbeats, 12 sweeps
    for submission_id in ids:
        assert learner.result(submission_id, timeout=90)["result"]["status"] == "pass"

    starts = Counter(marker for marker in markers for event, _, _ in events(web, marker) if event == "start")
    graders = {marker: events(web, marker)[0][1] for marker in markers}
    reclaims = sum((web.tmp / f"{name}.log").read_text().count("reclaimed") for name in workers.procs)
    figure("clock skew +-5 min: gradings per job / reclaims", f"{dict(Counter(starts.values()))} / {reclaims}")
    assert set(starts.values()) == {1}, "a live job was taken over"
    assert reclaims == 0
    assert len(set(graders.values())) >= 2  # the skewed workers really graded too


RUN = "/api/exercises/add-numbers/run"
ENDLESS = "import time\ntime.sleep(10**6)\n"
REAL_RUNS = {"GRADER_POOL_SIZE": "0"}  # the real run_code; a fresh local sandbox per Run
FAKE_CHECK = {"GRADING_TEST_CHECK_FUNCTION": "tests.celery.celery_fakes:check"}


def start_run(learner: Learner, source: str) -> str:
    status, body = learner.request("POST", RUN, {"code": source})
    assert status == 202, body
    return str(body["id"])


def run_state(learner: Learner, run_id: str) -> dict:
    return learner.request("GET", f"/api/runs/{run_id}")[1]


def start_a_run_and_a_check(web: Stack, learner: Learner, source: str) -> str:
    """A Run of `source` and a check of add-numbers, both started on the workers; the Run's id."""
    from app.grading import checks

    run_id = start_run(learner, source)
    with web.app.app_context():
        checks.request(web.app, ["add-numbers"])
    wait_until(lambda: run_state(learner, run_id)["status"] == "running" and events(web, "check-add-numbers"),
               60, "the Run and the check to start")
    return run_id


def test_a_run_on_a_killed_worker_is_ended_after_the_heartbeat_limit_not_run_again(stack):
    web, workers = stack
    base = web.serve()
    quick = {"GRADING_STALE_AFTER_S": "5", **REAL_RUNS}
    workers.start("runner", queues="runs", extra=quick)
    workers.start("sweeper", extra=quick)  # a grading worker: its sweep ends the Runs of dead workers
    learner = Learner(base)
    run_id = start_run(learner, ENDLESS)
    wait_until(lambda: run_state(learner, run_id)["status"] == "running", 60, "the Run to start")
    killed_at = time.time()
    workers.kill("runner")  # kill -9 of the whole worker: no one gives the Run back
    ended = wait_until(lambda: (state := run_state(learner, run_id))["status"] == "done" and state, 60,
                       "the Run to be ended")
    after = time.time() - killed_at
    figure("whole runs worker kill -9 -> the Run ended after", f"{after:.2f} s (heartbeat limit 5 s)")
    assert "the server running it stopped" in str(ended["result"])
    assert after < 5 + 10


def test_skewed_clocks_take_over_no_live_run_or_check(postgres_stack):
    """The clock-skew test of the gradings, for the other two kinds: a Run and a folder check run
    on workers 5 minutes behind and ahead while an on-time worker sweeps; neither is taken over."""

    web, workers, _ = postgres_stack
    base = web.serve()
    # Behind: on the host's clock (as Runs were claimed and beaten before) its beats look 5 minutes old.
    workers.start("runner-behind", queues="runs", extra={**_faketime("-5m"), **REAL_RUNS})
    workers.start("checker-ahead", queues="background", extra={**_faketime("+5m"), **FAKE_CHECK})
    learner = Learner(base)
    run_id = start_a_run_and_a_check(web, learner, ENDLESS)
    workers.start("on-time", extra=FAKE_CHECK)  # sweeps every second with the right clock
    time.sleep(12)  # 24 heartbeats, 12 sweeps; the stale limit is 30 s
    assert run_state(learner, run_id)["status"] == "running", "a live Run was ended"
    assert learner.request("POST", f"/api/runs/{run_id}/stop", {})[1]["status"] == "done"

    assert wait_until(lambda: check_verdict(web), 60, "the check to end") == (True, 1), "a live check was taken over"
    starts = [event for event, _, _ in events(web, "check-add-numbers") if event == "start"]
    reclaims = sum((web.tmp / f"{name}.log").read_text().count("took over") for name in workers.procs)
    figure("clock skew +-5 min: a Run and a check / check runs / take-overs", f"{len(starts)} / {reclaims}")
    assert len(starts) == 1 and reclaims == 0


def test_one_sweeper_tops_up_only_the_missing_tokens(stack):
    web, workers = stack
    base = web.serve(GRADING_MAX_PENDING_PER_LEARNER=20)
    for name in ("w1", "w2", "w3"):
        workers.start(name)
    learner = Learner(base)
    busy = [submit(learner, uuid.uuid4().hex, sleep=20) for _ in range(3)]  # one per worker
    wait_until(lambda: sum(1 for row in web.rows() if row.status == "running") == 3, 30, "three jobs running")
    waiting = [submit(learner, uuid.uuid4().hex) for _ in range(4)]
    web.redis.kill()  # the 4 waiting tokens are gone with it
    web.redis.start()

    queue = web.app.extensions["grading_queue"]
    samples = []

    def republished() -> int:
        return sum(
            int(line.split("re-published ")[1].split()[0])
            for name in workers.procs
            for line in (web.tmp / f"{name}.log").read_text().splitlines() if "re-published" in line
        )

    def topped_up() -> bool:
        samples.append(queue.backlog("cpu"))
        return republished() >= len(waiting)

    # However long a loaded machine takes to sweep; then six more rounds (one a second), in which
    # a second sweeper, or one that counted the busy workers' tokens as missing, would publish more.
    wait_until(topped_up, 60, "the sweep to publish the lost tokens", every=0.2)
    settled = time.monotonic() + 6
    while time.monotonic() < settled:
        samples.append(queue.backlog("cpu"))
        time.sleep(0.2)
    published = republished()
    figure("after a Redis loss with 4 jobs waiting and 3 busy workers: most tokens in Redis / published",
           f"{max(samples)} / {published}")
    assert max(samples) <= len(waiting), "more tokens than waiting jobs: several sweepers topped up"
    assert published == len(waiting), "tokens published again for jobs that already had one"
    for submission_id in busy + waiting:
        assert learner.result(submission_id, timeout=90)["result"]["status"] == "pass"


def test_redis_stopped_20_s_pages_work_writes_answer_503_nothing_lost(stack):
    web, workers = stack
    base = web.serve(GRADING_MAX_PENDING_PER_LEARNER=10, RATELIMIT_STORAGE_URI=web.redis.url[:-1] + "1")
    workers.start("w1")
    learner = Learner(base)
    accepted = [submit(learner, uuid.uuid4().hex, sleep=0.3) for _ in range(3)]
    assert learner.exchange("PUT", DRAFT, {"code": "x = 1\n"})[0] == 200

    web.redis.kill()
    statuses: dict[str, Counter[int]] = {"page": Counter(), "draft": Counter(), "submit": Counter(),
                                         "status": Counter()}
    retry_after = set()
    refused_message = ""
    outage_end = time.monotonic() + 20
    while time.monotonic() < outage_end:
        statuses["page"][learner.exchange("GET", LESSON)[0]] += 1
        statuses["draft"][learner.exchange("PUT", DRAFT, {"code": "x = 2\n"})[0]] += 1
        statuses["status"][learner.exchange("GET", f"/api/submissions/{accepted[0]}")[0]] += 1
        status, body, headers = learner.exchange("POST", "/api/exercises/add-numbers/submissions",
                                                 {"code": code(uuid.uuid4().hex)})
        statuses["submit"][status] += 1
        if status == 503:
            retry_after.add(headers.get("Retry-After"))
            refused_message = body.decode()
        time.sleep(0.3)
    web.redis.start()
    accepted.append(wait_until(lambda: (r := learner.submit(code(uuid.uuid4().hex)))[0] == 202 and r[1]["id"],
                               30, "submissions to be accepted again", every=0.5))

    figure("Redis stopped 20 s: responses", {kind: dict(counts) for kind, counts in statuses.items()})
    figure("Redis stopped 20 s: a refused submission's message", refused_message)
    assert all(500 not in counts for counts in statuses.values())
    assert set(statuses["submit"]) == {503} and None not in retry_after
    assert set(statuses["page"]) == {200} and set(statuses["draft"]) == {200}
    for submission_id in accepted:
        assert learner.result(submission_id, timeout=90)["result"]["status"] == "pass"
    rows = web.rows()
    figure("Redis stopped 20 s: accepted / stored / graded", f"{len(accepted)} / {len(rows)} / "
           f"{sum(1 for row in rows if row.status == 'done')}")
    assert len(rows) == len(accepted)  # nothing refused was kept, nothing accepted was lost


@pytest.fixture
def postgres_stack(tmp_path):
    from tests.celery.private_postgres import PrivatePostgres, binaries

    if binaries() is None:
        pytest.skip("PostgreSQL's server binaries are not installed (Debian: postgresql)")
    pytest.importorskip("psycopg", reason="pip install 'psycopg[binary]'")
    database = PrivatePostgres()
    database.create()
    built = Stack(tmp_path, db_url=database.url)
    built.redis.start()
    workers = Workers(built.env(), tmp_path)
    try:
        yield built, workers, database
    finally:
        workers.stop_all()
        if built.server is not None:
            built.server.shutdown()
        if built.app is not None:
            built.app.extensions["grading_queue"].shutdown()
        built.redis.kill()
        database.destroy()


def test_postgresql_stopped_20_s_keeps_finished_results_and_penalises_no_one(postgres_stack):
    web, workers, database = postgres_stack
    # Rate limits counted in Redis, as compose.yaml has them; small limits that the outage's
    # requests would use up many times over if a request the server failed counted.
    base = web.serve(GRADING_MAX_PENDING_PER_LEARNER=50, SUBMISSION_RATE_LIMIT="5/minute",
                     DRAFT_RATE_LIMIT="5/hour", RATELIMIT_STORAGE_URI=web.redis.url[:-1] + "1")
    workers.start("w1", concurrency=2)
    grading, other = Learner(base), Learner(base)
    markers = [uuid.uuid4().hex for _ in range(2)]
    ids = [submit(grading, marker, sleep=6) for marker in markers]
    wait_until(lambda: all(events(web, marker) for marker in markers), 30, "both gradings to start")

    def both_finished() -> bool:
        return all(events(web, marker)[-1][0] == "done" for marker in markers)

    database.stop()
    stopped_at = time.time()
    statuses: Counter[int] = Counter()
    submits: Counter[int] = Counter()
    drafts: Counter[int] = Counter()
    # 20 s, and longer (up to a minute) if a starved worker has not finished both gradings yet:
    # the test is about results finished while the database is away.
    outage_end = time.monotonic() + 20
    while time.monotonic() < outage_end or (not both_finished() and time.monotonic() < outage_end + 40):
        refused = other.exchange("POST", "/api/exercises/add-numbers/submissions", {"code": code(uuid.uuid4().hex)})
        statuses[refused[0]] += 1
        submits[refused[0]] += 1
        saved = other.exchange("PUT", DRAFT, {"code": "x = 2\n"})[0]
        statuses[saved] += 1
        drafts[saved] += 1
        statuses[grading.exchange("GET", f"/api/submissions/{ids[0]}")[0]] += 1
        statuses[other.exchange("GET", LESSON)[0]] += 1
        time.sleep(0.5)
    database.start()
    back_at = time.time()
    outage = back_at - stopped_at
    results = [grading.result(submission_id, timeout=60) for submission_id in ids]
    stored_after = time.time() - back_at

    finished = [events(web, marker)[-1][2] - stopped_at for marker in markers]
    regraded = sum(1 for marker in markers if [e for e, _, _ in events(web, marker)].count("start") > 1)
    after = other.submit(code(uuid.uuid4().hex))
    saves_after = [other.exchange("PUT", DRAFT, {"code": f"x = {n}\n"})[0] for n in range(6)]
    figure(f"PostgreSQL stopped {outage:.0f} s: responses during the outage", dict(statuses))
    figure("PostgreSQL stopped: gradings finished during the outage at",
           ", ".join(f"+{t:.1f} s" for t in finished))
    figure("PostgreSQL stopped: results stored / regraded / lost",
           f"{len(results)} within {stored_after:.1f} s of its return / {regraded} / "
           f"{len(ids) - sum(1 for r in results if r['result']['status'] == 'pass')}")
    figure("PostgreSQL stopped: first submission after it returned (limit 5/minute, "
           f"its {submits[503]} submissions during the outage answered 503)", after[0])
    figure(f"PostgreSQL stopped: 6 draft saves after it returned (limit 5/hour, its {drafts[503]} saves "
           "during the outage answered 503)", saves_after)
    assert all(0 < t < outage for t in finished), "the gradings were meant to finish during the outage"
    assert all(result["result"]["status"] == "pass" for result in results)
    assert regraded == 0
    assert 500 not in statuses and statuses[503] > 0 and drafts[503] > 5
    assert after[0] == 202, after  # the 503s did not count against the learner's rate limits ...
    assert saves_after == [200] * 5 + [429]  # ... of any kind; and the draft limit still counts


def _docker_client():
    """The engine, with the sandbox image built from this grader code, or a skip saying what is missing."""
    docker = pytest.importorskip("docker", reason="the docker SDK is not installed")
    from grader.sandboxes.docker.image import image_name, image_state

    try:
        client = docker.from_env(timeout=10)
        client.ping()
    except Exception as exc:  # noqa: BLE001 -- any failure means: no engine here
        pytest.skip(f"no Docker engine answers ({type(exc).__name__})")
    if image_state(client) != "current":
        pytest.skip(f"sandbox image {image_name()} is missing or from other grader code: make sandbox-image")
    return client


DOCKER_WORKER = {"GRADER_SANDBOX": "docker", "GRADING_TEST_GRADE_FUNCTION": "", "GRADER_POOL_SIZE": "1"}


def _containers_of(client, workers: Workers, name: str) -> list:
    from grader.sandboxes.docker.settings import LABEL_WORKER
    from grader.sandboxes.owner import process_identity

    identity = workers.identities.setdefault(name, process_identity(workers.procs[name].pid))
    return client.containers.list(all=True, ignore_removed=True, filters={"label": f"{LABEL_WORKER}={identity}"})


def _running(containers: list) -> bool:
    return bool(containers) and all(c.status == "running" for c in containers)


@pytest.mark.docker
def test_the_sandboxes_of_a_killed_worker_end_and_are_removed_within_a_minute(stack):
    client = _docker_client()
    web, workers = stack
    web.serve()
    for name in ("victim", "survivor"):
        workers.start(name, extra=DOCKER_WORKER)
    for name in ("victim", "survivor"):
        wait_until(lambda name=name: _running(_containers_of(client, workers, name)), 300,
                   f"{name}'s warm sandbox")
    mine = [c.id for c in _containers_of(client, workers, "victim")]

    killed_at = time.monotonic()
    workers.kill("victim")  # kill -9 of parent and pool: no atexit, no shutdown hook runs
    wait_until(lambda: not any(c.status == "running" for c in _containers_of(client, workers, "victim")),
               60, "the victim's sandboxes to end")
    ended = time.monotonic() - killed_at
    wait_until(lambda: not _containers_of(client, workers, "victim"), 60, "the victim's sandboxes to go")
    gone = time.monotonic() - killed_at

    figure("docker: a killed worker's warm sandboxes ended / removed after", f"{ended:.1f} s / {gone:.1f} s "
           f"({len(mine)} container(s))")
    assert gone < 60
    assert _running(_containers_of(client, workers, "survivor"))  # a live worker's are left alone


@pytest.mark.docker
def test_a_worker_stopped_as_compose_down_does_removes_its_sandboxes(stack):
    client = _docker_client()
    web, workers = stack
    web.serve()
    workers.start("alone", extra=DOCKER_WORKER)
    wait_until(lambda: _running(_containers_of(client, workers, "alone")), 300, "a warm sandbox")
    _containers_of(client, workers, "alone")  # its identity, read while its process lives

    stopped_at = time.monotonic()
    os.kill(workers.procs["alone"].pid, signal.SIGTERM)  # what `docker compose down` sends to PID 1
    workers.procs["alone"].wait(timeout=60)
    wait_until(lambda: not _containers_of(client, workers, "alone"), 60, "its sandboxes to go")
    gone = time.monotonic() - stopped_at

    figure("docker: a worker's sandboxes gone after its SIGTERM (compose down), no other worker", f"{gone:.1f} s")
    assert gone < 60


def test_redis_stopped_20_s_during_folder_checks_loses_no_check(stack):
    """Redis away, for the folder checks: a check running when Redis stops ends and keeps its verdict,
    one asked for while Redis is away waits in the database and is checked once Redis is back."""
    from app.extensions import db
    from app.grading import checks

    web, workers = stack
    web.serve()
    workers.start("w1", queues="cpu,background", extra={**FAKE_CHECK, "GRADING_TEST_CHECK_SLEEP_S": "8"})
    with web.app.app_context():
        assert checks.request(web.app, ["add-numbers"]) == ["add-numbers"]
    wait_until(lambda: events(web, "check-add-numbers"), 30, "the first check to start")

    web.redis.kill()
    stopped_at = time.time()
    with web.app.app_context():
        try:
            asked = checks.request(web.app, ["add-again"])
            refused = ""
        except Exception as error:  # the token could not be published: the row is what counts
            asked, refused = [], type(error).__name__
            db.session.rollback()
    verdict_during = wait_until(lambda: check_verdict(web), 40, "the running check to end while Redis is away")
    still_away = time.time() - stopped_at < 20
    time.sleep(max(0.0, 20 - (time.time() - stopped_at)))
    waiting = check_verdict(web, "add-again")
    web.redis.start()
    back_at = time.time()
    second = wait_until(lambda: check_verdict(web, "add-again"), 60, "the check asked for during the outage")
    checked_after = events(web, "check-add-again")[0][2] - back_at

    runs = {exercise: sum(1 for event, _, _ in events(web, f"check-{exercise}") if event == "start")
            for exercise in ("add-numbers", "add-again")}
    figure("Redis stopped 20 s during folder checks: asking for a check meanwhile", refused or f"queued {asked}")
    figure("Redis stopped 20 s during folder checks: the check asked for meanwhile started after Redis returned",
           f"{checked_after:.1f} s (sweep every 1 s)")
    assert verdict_during == (True, 1) and still_away, "the running check did not keep its verdict during the outage"
    assert waiting is None, "a check ran while Redis was away (no token could reach it)"
    assert second == (True, 1)
    assert runs == {"add-numbers": 1, "add-again": 1}, "a check ran twice"
    assert checked_after < 30


RUN_FOR_6_S = "import time\ntime.sleep(6)\nprint('ran for 6 s')\n"


def test_postgresql_stopped_20_s_keeps_the_run_and_the_check_finished_meanwhile(postgres_stack):
    """PostgreSQL away, for Runs and folder checks: a Run and a check running when the database stops
    finish during the outage; each result is stored once the database is back, neither runs again."""
    from app.extensions import db
    from app.models import Run

    web, workers, database = postgres_stack
    base = web.serve()
    workers.start("runner", queues="runs", extra=REAL_RUNS)
    workers.start("checker", queues="background", extra={**FAKE_CHECK, "GRADING_TEST_CHECK_SLEEP_S": "6"})
    learner = Learner(base)
    run_id = start_a_run_and_a_check(web, learner, RUN_FOR_6_S)

    database.stop()
    stopped_at = time.time()
    polled: Counter[int] = Counter()
    while time.time() - stopped_at < 20:
        polled[learner.exchange("GET", f"/api/runs/{run_id}")[0]] += 1
        time.sleep(0.5)
    database.start()
    back_at = time.time()
    ran = wait_until(lambda: (state := run_state(learner, run_id))["status"] == "done" and state, 60,
                     "the Run's result to be stored")
    run_stored = time.time() - back_at
    verdict = wait_until(lambda: check_verdict(web), 60, "the check's verdict to be stored")
    check_stored = time.time() - back_at

    check_done = [at for event, _, at in events(web, "check-add-numbers") if event == "done"]
    check_starts = sum(1 for event, _, _ in events(web, "check-add-numbers") if event == "start")
    with web.app.app_context():
        run_attempts = db.session.get(Run, run_id).attempts
        db.session.rollback()
    takeovers = sum((web.tmp / f"{name}.log").read_text().count("took over") for name in workers.procs)
    figure("PostgreSQL stopped 20 s: polls of a Run's state during the outage", dict(polled))
    figure("PostgreSQL stopped 20 s: the Run's / the check's result stored after its return",
           f"{run_stored:.1f} s / {check_stored:.1f} s; check ended during the outage at "
           f"+{check_done[0] - stopped_at:.1f} s")
    assert 500 not in polled and polled[503] > 0
    assert "ran for 6 s" in json.dumps(ran["result"]), ran
    assert verdict == (True, 1)
    assert 0 < check_done[0] - stopped_at < 20, "the check was meant to end during the outage"
    assert check_starts == 1 and run_attempts == 1 and takeovers == 0, "a job ran again after the outage"
