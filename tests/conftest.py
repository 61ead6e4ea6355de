"""Suite-wide fixtures: repository paths, copies of an exercise with a short or a roomy time limit,
and the run's cache of gradings.

Time limits are wall-clock, so a test's verdict must never hinge on how busy the host is:
a run meant to time out gets a short limit (an endless loop exceeds any limit), and a run
meant to pass, fail or hit another limit (memory, processes, output) gets the platform's
largest limit, so only that other limit can end it.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from grader.schema import MAX_TIME_S
from tests.grading_cache import GradingCache

REPO = Path(__file__).resolve().parent.parent
EXERCISES = REPO / "exercises"
# Apps built by tests do not check every folder they see with the real grader in the
# background (app.grading.checks); the tests of that watch turn it on for their app.
os.environ.setdefault("CHECK_SEEN_FOLDERS", "0")


@pytest.fixture(scope="session")
def exercises_dir() -> Path:
    return EXERCISES


def copy_with_time_limit(source: Path, target_root: Path, time_s: float) -> Path:
    """A copy of an exercise folder whose time limit is `time_s`, so timeouts are quick to test."""
    target = target_root / source.name
    shutil.copytree(source, target)
    config = target / "exercise.toml"
    text = config.read_text(encoding="utf-8")
    text, count = re.subn(r"(?m)^time_s\s*=.*$", f"time_s = {time_s}", text)
    if not count:
        text, count = re.subn(r"(?m)^\[limits\]\s*$", f"[limits]\ntime_s = {time_s}", text)
    if not count:
        text += f"\n[limits]\ntime_s = {time_s}\n"
    config.write_text(text, encoding="utf-8")
    return target


@pytest.fixture(scope="session")
def quick_flagship(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """amp-train-one-epoch with an 8-second limit."""
    return copy_with_time_limit(EXERCISES / "amp-train-one-epoch", tmp_path_factory.mktemp("ex"), 8)


@pytest.fixture(scope="session")
def roomy_flagship(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """amp-train-one-epoch with the largest limit the platform allows (MAX_TIME_S, 120 s).

    For runs whose expected verdict is not a timeout: a loaded host slows them down, and
    must not turn their verdict into one.
    """
    return copy_with_time_limit(EXERCISES / "amp-train-one-epoch", tmp_path_factory.mktemp("ex"),
                                MAX_TIME_S)


@pytest.fixture(scope="session")
def roomy_exercises(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every exercise folder of the repository, each with the platform's largest time limit.

    For tests of verdicts (the solution passes, the starter fails, docker agrees with local),
    not of speed: at load 20 on 2 cores, real limits of 30 s timed out honest solutions.
    Whether a solution fits its real limit is asked in CPU seconds (test_validate.py).
    """
    root = tmp_path_factory.mktemp("roomy-exercises")
    for folder in sorted(EXERCISES.iterdir()):
        if (folder / "exercise.toml").is_file():
            copy_with_time_limit(folder, root, MAX_TIME_S)
    return root


@pytest.fixture(scope="session")
def gradings() -> GradingCache:
    """Local gradings, done once per run however many tests ask (see tests/grading_cache.py)."""
    return GradingCache.from_env()


def once_per_run(what: str) -> None:
    """Fail if `what` already ran in this `make test` run (on another xdist worker, or twice here).

    Modules whose module-scoped fixture grades every case up front must run whole on one
    worker (`--dist loadfile`, scripts/run-tests.sh); this catches a split, which costs a
    second grading of everything (15 minutes for the AMP corpus) and passes silently.
    """
    folder = os.environ.get("LEARNAI_GRADING_CACHE")
    if not folder:
        return  # a plain pytest run: one process, nothing to compare with
    marker = Path(folder) / f"once-{what}"
    marker.parent.mkdir(parents=True, exist_ok=True)  # the cache makes it on its first grading
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        pytest.fail(f"{what} ran a second time in this run (first on {marker.read_text()}, now on "
                    f"{worker}): its module must run whole on one xdist worker (--dist loadfile)")
    with os.fdopen(fd, "w") as handle:
        handle.write(worker)


@pytest.fixture
def old_document() -> dict:
    """A document stored before `given`: the broken given check cost nothing, the score said 100 %."""
    def row(check_slug, status, points, max_points):
        return {"name": check_slug, "check": check_slug, "title": check_slug, "status": status, "message": "",
                "hint": "", "line": None, "points": points, "max_points": max_points}

    return {"version": 1, "exercise": "amp-fix-the-loop", "status": "fail", "score": 1.0, "error_kind": None,
            "message": "", "tests": [row("one-scaler", "pass", 1, 1), row("zero-grad-each-iteration", "pass", 1, 1),
                                     row("update-after-step", "fail", 0, 0), row("runs", "pass", 0, 0)],
            "advice": [], "output": "", "duration_s": 0.5}


# The fault suite (tests/celery/test_faults.py) prints figures that docs/scaling.md quotes.
# Under xdist a test's prints are hidden, so each figure is also appended to one file per run,
# shown at the end of the run by the controller.
FIGURES_ENV = "LEARNAI_FAULT_FIGURES"


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput") and FIGURES_ENV not in os.environ:
        import tempfile

        handle, path = tempfile.mkstemp(prefix="learnai-fault-figures-", suffix=".txt")
        os.close(handle)
        os.environ[FIGURES_ENV] = path  # xdist workers start later and inherit it


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    path = Path(os.environ.get(FIGURES_ENV, ""))
    if path.is_file():
        lines = path.read_text(encoding="utf-8").splitlines()
        path.unlink()
        if lines:
            terminalreporter.section("fault suite figures")
            for line in lines:
                terminalreporter.line(line)
