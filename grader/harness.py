"""The trusted harness: starts the learner runner, runs the exercise's pytest tests against it, writes results."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from grader import figures, measurement, runner_fork
from grader.authoring import static_problems
from grader.learner import Learner, LearnerFatal
from grader.learner_errors import SUBMISSION_NAME
from grader.loader import Exercise, load_exercise
from grader.messages import run_error
from grader.plugin import LANGS, GraderPlugin, timeout_message
from grader.results import Results, error_result, summarize
from grader.schema import Limits
from grader.testing import localize

if TYPE_CHECKING:
    from grader.sandboxes.jail import JobJail

PYTEST_INI = "[pytest]\n"  # an empty config: the project's own pytest settings must not leak in
# pytest's own plugins that grading never uses. Each costs time on every run: the logging plugin
# walks every logger torch made, unraisableexception runs gc.collect() over torch's whole heap.
# Verdicts come from our plugin; warnings and leaks inside the trusted harness are not the learner's.
UNUSED_PYTEST_PLUGINS = (
    "cacheprovider", "randomly", "logging", "unraisableexception", "threadexception", "warnings",
    "faulthandler", "doctest", "junitxml", "pastebin", "stepwise", "legacypath", "setuponly",
    "setupplan", "debugging",
)
PYTEST_OPTIONS = [*(arg for name in UNUSED_PYTEST_PLUGINS for arg in ("-p", f"no:{name}")),
                  "-q", "--import-mode=importlib", "--no-header"]


def grade_in_process(exercise_dir: Path, submission: Path, *, lang: str = "en",
                     runner_user: str | None = None, workdir: Path | None = None,
                     jail: JobJail | None = None) -> Results:
    """Grade one submission; learner code runs only in the child the Learner starts.

    The runner is forked from this process before the exercise is read (grader.runner_fork):
    torch is imported once, here, and no test or solution was ever in the child's memory.
    """
    started = time.monotonic()
    own_workdir = workdir is None
    workdir = Path(workdir or tempfile.mkdtemp(prefix="learner-"))
    learner_file = workdir / SUBMISSION_NAME
    if learner_file != submission:
        shutil.copyfile(submission, learner_file)
    runner_fork.prepare("torch")
    # With a jail (grader.sandboxes.jail; the CLI hardened this process) the runner enters it.
    learner = Learner(learner_file, Limits(), workdir=workdir, runner_user=runner_user, fork=True,
                      jail=jail)
    figures.take(lang)  # start empty: figures belong to one grading
    measurement.take()  # likewise the measurement
    try:
        learner.start()
        try:
            exercise = load_exercise(Path(exercise_dir))
        except Exception as exc:  # noqa: BLE001 -- a broken folder is our fault, reported as internal
            learner.close()
            return error_result(Path(exercise_dir).name, "internal",
                                run_error("internal", lang, detail=str(exc)))
        learner.assign(exercise.config.limits)
        return grade_with(exercise, learner, lang, started)
    finally:
        if own_workdir:
            shutil.rmtree(workdir, ignore_errors=True)
        if jail is not None:  # nothing of the job outlives it
            jail.end(descendants_of=os.getpid(), reap=True)


def grade_with(exercise: Exercise, learner: Learner, lang: str, started: float) -> Results:
    """Grade with a started learner (cold, or warm and waiting), then close it."""
    try:
        results = _grade(exercise, learner, lang)
    finally:
        learner.close()
    results.output = learner.output[: exercise.config.limits.output_kb * 1024 + 200]
    results.advice = [localize(item, lang) for item in learner.advice]
    results.texts.setdefault(other_language(lang), {})["advice"] = [
        localize(item, other_language(lang)) for item in learner.advice]
    results.figures = figures.take(lang)
    results.measurement = measurement.take()
    results.duration_s = round(time.monotonic() - started, 3)
    return results


def run_with(exercise: Exercise, learner: Learner, lang: str, started: float) -> dict[str, Any]:
    """Run without grading: the submission's top level only; a run document, never raised."""
    error: dict[str, Any] | None = None
    try:
        if not learner.load():
            failure = learner.load_error or {}
            kind = failure.get("kind")
            kind = "syntax" if kind == "syntax" else "internal" if kind == "internal" else "runtime"
            if failure.get("type") == "MemoryError":
                kind = "memory"
            error = {"kind": kind, "message": _run_message(exercise, kind, failure, lang),
                     "line": failure.get("line"), "traceback": failure.get("traceback", "")}
    except LearnerFatal as fatal:
        result = _fatal_result(exercise, fatal, lang, _source_of(learner))
        error = {"kind": fatal.kind, "message": result.message, "line": fatal.line,
                 "traceback": ""}
    finally:
        learner.close()
    return {"status": "ok" if error is None else "error",
            "output": learner.output[: exercise.config.limits.output_kb * 1024 + 200],
            "error": error, "duration_s": round(time.monotonic() - started, 3)}


def _run_message(exercise: Exercise, kind: str, failure: dict[str, Any], lang: str) -> str:
    if kind == "memory":
        return run_error("memory", lang, limit=str(exercise.config.limits.memory_mb))
    detail = failure.get("message", "") if kind in ("syntax", "internal") else failure.get("type", "")
    if kind == "runtime" and failure.get("message"):
        detail = f"{detail}: {failure['message']}"
    return run_error(kind, lang, detail=detail, line=failure.get("line"))


def _prepare_torch() -> None:
    """Exercise tests compare tensors: import torch now, without its compiler (see lazy_dynamo)."""
    from grader.amp.lazy_dynamo import defer_dynamo_import

    defer_dynamo_import()


def _grade(exercise: Exercise, learner: Learner, lang: str) -> Results:
    try:
        loaded = learner.load()
    except LearnerFatal as fatal:
        return _fatal_result(exercise, fatal, lang, _source_of(learner))
    if not loaded:
        error = learner.load_error or {}
        if error.get("kind") == "internal":
            return error_result(exercise.id, "internal",
                                run_error("internal", lang, detail=error.get("message", "")))
        if error.get("type") == "MemoryError":  # the address-space limit, hit at import time
            return _fatal_result(exercise, LearnerFatal("memory", "out of memory", error.get("line")), lang)
        kind = "syntax" if error.get("kind") == "syntax" else "runtime"
        detail = error.get("message", "") if kind == "syntax" else error.get("type", "an error")
        if kind == "runtime" and error.get("message"):
            detail = f"{detail}: {error['message']}"
        tb = error.get("traceback", "")

        def message_in(in_lang: str) -> str:
            words = run_error(kind, in_lang, detail=detail, line=error.get("line"))
            return f"{words}\n\n{tb}" if tb else words

        return in_both(error_result(exercise.id, kind, message_in(lang), line=error.get("line")), lang,
                       message_in)
    plugin = GraderPlugin(exercise, learner, lang)
    with tempfile.TemporaryDirectory(prefix="harness-") as scratch:
        ini = Path(scratch) / "pytest.ini"
        ini.write_text(PYTEST_INI)
        code = pytest.main(
            [str(exercise.tests_dir), "-c", str(ini), "--rootdir", str(exercise.tests_dir),
             *PYTEST_OPTIONS, "--tb=no"],  # reports come from the plugin
            plugins=[plugin],
        )
    if learner.fatal is not None:
        result = _fatal_result(exercise, learner.fatal, lang, _source_of(learner))
        result.tests = plugin.results
        # The card the stop hit names a line (a time-out: the first loop); the verdict points there too.
        told = next((t for t in plugin.results if t.status == "error" and t.line), None)
        if result.line is None and told is not None:
            result.line, result.message = told.line, told.message
            result.texts = {other: {"message": texts["message"]} for other, texts in told.texts.items()}
        return result
    authoring = plugin.authoring
    if not authoring and code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        authoring = static_problems(exercise.path)  # a conftest that fails stops pytest before any report
    if authoring:
        return authoring_result(exercise, authoring, lang, plugin.results)
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or not plugin.results:
        detail = f"pytest exit code {int(code)}"
        return error_result(exercise.id, "internal", run_error("internal", lang, detail=detail))
    return summarize(exercise.id, plugin.results)


def authoring_result(exercise: Exercise, problems: list[str], lang: str, tests: list) -> Results:
    """The exercise's own tests are broken: the author's error, never scored as the learner's.

    The message names every problem (file, line, cause); the checks that did run are kept so
    the author sees what still worked.
    """
    result = error_result(exercise.id, "authoring", run_error("authoring", lang, detail="; ".join(problems)))
    result.tests = tests
    return result


def _source_of(learner: Learner) -> str:
    try:
        return learner.source
    except (OSError, UnicodeDecodeError):
        return ""


def _fatal_result(exercise: Exercise, fatal: LearnerFatal, lang: str, source: str = "") -> Results:
    limits = exercise.config.limits
    limit = {"timeout": f"{limits.time_s:g}", "memory": str(limits.memory_mb),
             "output-limit": str(limits.output_kb)}.get(fatal.kind, "")

    def message_in(in_lang: str) -> str:
        if fatal.kind == "timeout":  # the line it was still running, and the loop around it
            return timeout_message(in_lang, limit, source, fatal.line)
        return run_error(fatal.kind, in_lang, limit=limit, detail=str(fatal), line=fatal.line)

    return in_both(error_result(exercise.id, fatal.kind, message_in(lang), line=fatal.line),  # type: ignore[arg-type]
                   lang, message_in)


def other_language(lang: str) -> str:
    return next(other for other in LANGS if other != lang)


def in_both(result: Results, lang: str, message_in: Callable[[str], str]) -> Results:
    """The whole-run message in the other language too (texts), so a page shows it in its own,
    as it does each check's: a syntax error graded in English read in English on a ja page."""
    result.texts.setdefault(other_language(lang), {})["message"] = message_in(other_language(lang))
    return result


def write_results(results: Results, path: Path) -> None:
    """Write atomically, so a reader never sees half a document."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(results.to_dict(), ensure_ascii=False), encoding="utf-8")
    os.replace(temporary, path)


def run(exercise_dir: Path, submission: Path, results_path: Path, *, lang: str = "en",
        runner_user: str | None = None, jail: JobJail | None = None) -> int:
    """The `python -m grader harness` command: always writes a results document."""
    try:
        results = grade_in_process(exercise_dir, submission, lang=lang, runner_user=runner_user,
                                   jail=jail)
    except Exception as exc:  # noqa: BLE001 -- never leave the caller without a verdict
        results = error_result(Path(exercise_dir).name, "internal",
                               run_error("internal", lang, detail=f"{type(exc).__name__}: {exc}"))
    write_results(results, results_path)
    return 0
