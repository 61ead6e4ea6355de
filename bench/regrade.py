"""A regrade of many stored submissions during a class: how much later do learners get their results?

    .venv/bin/python -m bench.regrade [--stored 1000] [--learners 30] [--seconds 40] [--grade-s 0.3]

`make run`'s defaults: in-process grading (GRADER_WORKERS as app/config.py sizes it for this
host, REGRADE_MAX_RUNNING 1), the web app served over HTTP. LEARNERS browsers (each its own
address) submit correct code, wait for the result, think a second and
submit again, for SECONDS; first with nothing else running, then again while a regrade of
STORED submissions runs. Grading is a stand-in that sleeps GRADE_S (the same for learners and
regrades), so the figures measure the queue, not the sandbox. Prints each phase's learner
submit->result p50/p90 (polled as the editor polls), the p90 change, how many submissions the regrade
got through during the class, and, once it has finished, whether every stored submission was
graded exactly once. --again runs the class alone once more (the regrade held): the host's noise.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from bench.stats import percentile
from tests.app.regrade.regrade_helpers import mark_validated, old_result, store_submissions
from tests.app.web_helpers import keyword_grader
from tests.celery.celery_stack import Learner, Stack, code

CALLS: Counter[str] = Counter()
LOCK = threading.Lock()
GRADE_S = 0.3


def grade(exercise: Any, source: str, *, lang: str = "en", sandbox: str = "auto") -> dict[str, Any]:
    """The stand-in grader: counts each grading by the code's marker, sleeps GRADE_S, passes a + b."""
    marker = source.split("\n", 1)[0]
    with LOCK:
        CALLS[marker] += 1
    time.sleep(GRADE_S)
    return keyword_grader(exercise, source, lang=lang, sandbox=sandbox)


def class_of(base: str, learners: int, seconds: float) -> list[float]:
    """LEARNERS browsers submitting, waiting and thinking for SECONDS; their submit->result times."""
    times: list[float] = []
    stop = time.monotonic() + seconds

    def learner(n: int) -> None:
        browser = Learner(base, address=f"10.0.{n // 250}.{n % 250 + 1}")
        while time.monotonic() < stop:
            sent = time.monotonic()
            status, body = browser.submit(code(f"class-{uuid.uuid4().hex}"))
            assert status == 202, body
            delay = 0.4  # as the editor polls (app/static/src/grading.js): 400 ms, then x1.5 up to 2 s
            while True:
                status, found = browser.request("GET", f"/api/submissions/{body['id']}")
                if status == 200 and found["status"] == "done":
                    break
                time.sleep(delay)
                delay = min(delay * 1.5, 2.0)
            times.append(time.monotonic() - sent)
            time.sleep(1.0)

    threads = [threading.Thread(target=learner, args=(n,)) for n in range(learners)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return times


def main() -> None:
    global GRADE_S
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stored", type=int, default=1000)
    parser.add_argument("--learners", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--grade-s", type=float, default=0.3)
    parser.add_argument("--again", action="store_true", help="then the class alone once more (the host's noise)")
    parser.add_argument("--no-finish", action="store_true", help="do not wait for the regrade to finish")
    args = parser.parse_args()
    GRADE_S = args.grade_s
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per poll otherwise
    from app.extensions import db
    from app.grading import regrade
    from app.models import Regrade

    with tempfile.TemporaryDirectory() as tmp:
        stack = Stack(Path(tmp))
        base = stack.serve(CELERY_BROKER_URL=None, GRADE_FUNCTION=grade, TRUSTED_PROXIES=1)
        app = stack.app
        print(f"load average {os.getloadavg()[0]:.2f}; GRADER_WORKERS {app.config['GRADER_WORKERS']}, "
              f"REGRADE_MAX_RUNNING {regrade.max_running(app)}, grading {GRADE_S} s (stand-in)")
        quiet = class_of(base, args.learners, args.seconds)
        print(f"class alone:          {len(quiet)} results, p50 {statistics.median(quiet):.2f} s, "
              f"p90 {percentile(quiet, 0.9):.2f} s")
        markers = [f"# id stored-{n}" for n in range(args.stored)]
        good = "\ndef add(a, b):\n    return a + b\n"
        store_submissions(app, [(f"old{n}", marker + good, old_result(False, 0.6)) for n, marker in enumerate(markers)])
        mark_validated(app)
        with app.app_context():
            run_id = regrade.start(app, "add-numbers", scope="all").id
        began = time.monotonic()
        busy = class_of(base, args.learners, args.seconds)
        with app.app_context():
            during = regrade.counts(run_id)["done"]
        print(f"class during regrade: {len(busy)} results, p50 {statistics.median(busy):.2f} s, "
              f"p90 {percentile(busy, 0.9):.2f} s")
        print(f"learner p90 change:   {percentile(busy, 0.9) - percentile(quiet, 0.9):+.2f} s")
        print(f"regraded during the class: {during} of {args.stored} in {time.monotonic() - began:.0f} s")
        if args.again:  # the class alone once more, while the regrade goes on: how noisy is the host?
            with app.app_context():
                regrade_ids = [job.id for job in db.session.query(Regrade).filter_by(run_id=run_id, status="queued")]
                db.session.query(Regrade).filter(Regrade.id.in_(regrade_ids)).update({"status": "held"})
                db.session.commit()
            again = class_of(base, args.learners, args.seconds)
            print(f"class alone again:    {len(again)} results, p50 {statistics.median(again):.2f} s, "
                  f"p90 {percentile(again, 0.9):.2f} s (the regrade held meanwhile)")
            with app.app_context():
                db.session.query(Regrade).filter(Regrade.id.in_(regrade_ids)).update({"status": "queued"})
                db.session.commit()
                regrade.wake(app)
        if not args.no_finish:
            with app.app_context():
                while regrade.active_run("add-numbers") is not None:
                    time.sleep(1)
                jobs = db.session.query(Regrade).filter_by(run_id=run_id).count()
            graded = [CALLS[marker] for marker in markers]
            print(f"regrade finished {time.monotonic() - began:.0f} s after it began; {jobs} jobs (the class's own "
                  f"too); graded once: {graded.count(1)}, more than once: {sum(1 for n in graded if n > 1)}, "
                  f"never: {graded.count(0)}; load average {os.getloadavg()[0]:.2f}")
        stack.server.shutdown()
        app.extensions["grading_queue"].shutdown(wait=False)  # --no-finish: the regrade's tokens are dropped


if __name__ == "__main__":
    main()
