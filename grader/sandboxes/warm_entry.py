"""A warm sandbox's harness: imports everything and starts its runner first, then takes ONE job.

    python -m grader.sandboxes.warm_entry [--job-file PATH] [--runner-user UID:GID]

Started by a pool (grader/sandboxes/pool.py) before any job exists, or for a job at once: it
imports torch, pytest and the grader, forks the learner runner from itself (grader.runner_fork)
and waits. The job order (grader.sandboxes.contract.job_order, the one place for this
protocol) arrives as one JSON line on stdin (local pool) or as a file (docker).
It grades or runs that one job, writes the document and exits: a sandbox is never reused.
No learner code exists in this process tree before the job, so nothing a learner does can
reach a later learner (the next job gets a different, equally fresh pair).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import select
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from grader.sandboxes.contract import JOB_BYTES, READY

MAX_IDLE_S = 900.0  # an idle warm sandbox ends itself; the pool starts a fresh one
POLL_S = 0.005  # how often a docker sandbox looks for its job file (a stat in a tmpfs-like volume)


def warm_up() -> None:
    """Import and exercise what grading needs, so the job pays none of it."""
    from grader.harness import PYTEST_INI, PYTEST_OPTIONS, _prepare_torch

    _prepare_torch()
    import pytest

    import grader.author  # noqa: F401 -- every exercise's tests import it (AMP kit included)
    import grader.plugin  # noqa: F401

    # pytest's first run loads its plugins and assertion rewriter: do it on an empty folder.
    with tempfile.TemporaryDirectory(prefix="warm-") as empty:
        ini = Path(empty) / "pytest.ini"
        ini.write_text(PYTEST_INI)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            pytest.main([empty, "-c", str(ini), *PYTEST_OPTIONS, "--collect-only"])
    # What is loaded now lives as long as the sandbox: collections during the job then walk
    # only the job's objects, not torch's and pytest's (halves a warm grading, see grading.md).
    gc.freeze()


def wait_for_job(job_file: str | None, max_idle_s: float) -> dict[str, Any] | None:
    """The job, or None when the pool closed us (stdin EOF) or nobody came in time."""
    deadline = time.monotonic() + max_idle_s
    if job_file is None:
        fd = sys.stdin.fileno()
        ready, _, _ = select.select([fd], [], [], max_idle_s)
        line = sys.stdin.buffer.readline(JOB_BYTES) if ready else b""
        return json.loads(line) if line.strip() else None
    path = Path(job_file)
    while time.monotonic() < deadline:
        try:
            return json.loads(path.read_bytes()[:JOB_BYTES])
        except (FileNotFoundError, PermissionError):
            # Not there yet, or there but not yet ours: put_archive creates the file before it
            # sets its owner and mode (seen as an internal error under load in CI).
            time.sleep(POLL_S)
        except ValueError:  # being written this very moment
            time.sleep(POLL_S)
    return None


def watch_lifeline() -> None:
    """End this sandbox as soon as stdin reaches EOF, waiting or grading.

    Docker keeps a warm container's stdin open while the process that made it holds it
    attached (stdin_once); when that process dies -- kill -9, a pool process that never runs
    atexit, `docker kill` of its worker -- stdin closes and nobody will read our result.

    The watch reads a descriptor of its own, duplicated from stdin now, never fd 0 itself:
    the grading's pytest captures fd 0 too (each test points it at /dev/null), and a read of
    fd 0 that a signal interrupts is issued again on whatever fd 0 is then, so /dev/null's
    end of file was taken for the lifeline's: the sandbox ended itself with exit 0 mid-grading
    and no results file (seen on overlapping gradings of amp-measure-speed, 1 in 2).
    """
    lifeline = os.dup(sys.stdin.fileno())  # not inheritable: no runner or exec'd child gets it

    def watch() -> None:
        while os.read(lifeline, 4096):
            pass  # nothing is ever sent; only the end matters
        os._exit(0)  # the container's init then stops what is left (the learner runner)

    threading.Thread(target=watch, name="lifeline", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--job-file", default=None, help="wait for this file instead of stdin")
    parser.add_argument("--runner-user", default=None, help="run learner code as this user")
    parser.add_argument("--max-idle-s", type=float, default=MAX_IDLE_S)
    parser.add_argument("--lifeline", action="store_true",
                        help="end when stdin closes (the process that made this sandbox died)")
    parser.add_argument("--prewarmed", action="store_true",
                        help="forked from the zygote: everything is imported already")
    parser.add_argument("--nice", type=int, default=0,
                        help="start up at this lower priority, back to normal when the job comes")
    parser.add_argument("--jail", default=None,
                        help="the job's jail (grader.sandboxes.jail.JobJail.to_arg): the runner enters it")
    parser.add_argument("--parent-pid", type=int, default=None,
                        help="the single-threaded process this harness must die with (the zygote)")
    options = parser.parse_args(argv)
    job = None
    if options.jail is not None:
        from grader.sandboxes import jail

        job = jail.JobJail.from_arg(options.jail)
        jail.harden_harness(options.parent_pid)  # given by the zygote: single-threaded
        jail.prepare()
    from grader.sandboxes import lane

    base_nice = os.getpriority(os.PRIO_PROCESS, 0)
    # A refill yields the CPU to gradings while it imports (grader.sandboxes.lane); only if
    # we may raise it back for the job, which must never run at a lowered priority.
    refill = options.nice > 0 and lane.can_raise_back(base_nice)
    if refill:
        os.nice(options.nice)  # the main thread, before any other: every later thread inherits
    if options.lifeline:
        watch_lifeline()

    from grader import runner_fork
    from grader.learner import Learner, LearnerFatal
    from grader.learner_errors import SUBMISSION_NAME
    from grader.schema import Limits

    workdir = Path(tempfile.mkdtemp(prefix="learner-"))
    learner = Learner(workdir / SUBMISSION_NAME, Limits(), workdir=workdir,
                      runner_user=options.runner_user, fork=True, jail=job)
    if not options.prewarmed:
        warm_up()
    # The runner is forked from this process, which has imported torch once for both and has
    # read no exercise yet (grader.runner_fork says why that keeps the boundary).
    runner_fork.prepare(learner.preload)
    learner.start()
    try:
        learner.wait_ready()
    except LearnerFatal:
        pass  # the job's first request reports it (as internal): never a verdict on the learner
    print(READY, flush=True)  # the pool hands out only sandboxes that said this
    os.dup2(2, 1)  # from now on our stdout (pytest's chatter) goes where stderr goes
    order = wait_for_job(options.job_file, options.max_idle_s)
    if refill and order is not None:  # a learner waits now: this harness and its runner
        runner = learner.pid
        lane.set_group_priority([os.getpgrp(), *([runner] if runner else [])], base_nice)
    try:
        if order is None:
            learner.close()
        else:
            _run_job(order, learner, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        if job is not None:  # nothing of the job outlives it (the pool checks this again)
            from grader.sandboxes import jail

            jail.end(job, descendants_of=os.getpid(), reap=True)
    return 0


def _run_job(job: dict[str, Any], learner: Any, workdir: Path) -> None:
    from grader.harness import grade_with, run_with, write_results
    from grader.learner_errors import SUBMISSION_NAME
    from grader.loader import load_exercise
    from grader.messages import run_error
    from grader.results import error_result

    started = time.monotonic()
    lang = job.get("lang", "en")
    results_path = Path(job["results"])
    try:
        exercise = load_exercise(Path(job["exercise"]))
        shutil.copyfile(job["submission"], workdir / SUBMISSION_NAME)
        learner.assign(exercise.config.limits)
        if job.get("mode") == "run":
            doc = run_with(exercise, learner, lang, started)
            write_json(doc, results_path)
            return
        results = grade_with(exercise, learner, lang, started)
    except Exception as exc:  # noqa: BLE001 -- never leave the caller without a document
        learner.close()
        exercise_id = Path(job.get("exercise", "unknown")).name
        detail = f"{type(exc).__name__}: {exc}"
        if job.get("mode") == "run":
            write_json({"status": "error", "output": "", "duration_s": 0.0, "error": {
                "kind": "internal", "message": run_error("internal", lang, detail=detail),
                "line": None, "traceback": ""}}, results_path)
            return
        results = error_result(exercise_id, "internal", run_error("internal", lang, detail=detail))
    write_results(results, results_path)


def write_json(doc: dict[str, Any], path: Path) -> None:
    """Atomically, like the harness's results."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    os.replace(temporary, path)


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # no interpreter teardown (torch's takes ~0.3 s): the document is written
