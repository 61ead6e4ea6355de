"""The pytest plugin the harness installs: fixtures for exercise tests and one TestResult per test."""

from __future__ import annotations

import ast
import importlib.util
from types import ModuleType
from typing import Any

import pytest

from grader.authoring import collect_error, raised_error
from grader.learner import Learner, LearnerError, LearnerFatal
from grader.loader import Exercise
from grader.messages import RUN_ERRORS, run_error, still_running
from grader.missing import describe_missing, missing_name
from grader.results import TestResult, settle
from grader.testing import (  # AuthoringError: the kits raise it below the plugin's layer
    AuthoringError,
    CannotVerifyHere,
    CheckInfo,
    Feedback,
    NotChecked,
    check_info,
    localize,
)


def item_info(item: pytest.Item) -> CheckInfo:
    """The check an item declares; a plain test is still shown, titled by its docstring or name."""
    function = getattr(item, "function", None)
    info = check_info(function)
    if info is None:
        doc = ((function.__doc__ if function else None) or "").strip().splitlines()
        info = CheckInfo(slug=item.name, title=doc[0] if doc else item.name)
    return info


def where(item: pytest.Item) -> str:
    """'tests/test_x.py:12', the place an author looks for the check."""
    path, line, _ = item.location
    return f"tests/{path}:{(line or 0) + 1}"


def authoring_problems(items: list[pytest.Item]) -> dict[str, str]:
    """Per item id, what is wrong with its declaration: a depends on a slug no earlier check has.

    A misspelled or later slug would otherwise skip the check for every learner, silently.
    """
    declared = {item_info(item).slug for item in items}
    seen: set[str] = set()
    problems: dict[str, str] = {}
    for item in items:
        info = item_info(item)
        for slug in info.depends:
            if slug not in declared:
                problems[item.nodeid] = (f"{where(item)}: check '{info.slug}' depends on '{slug}', which no "
                                         f"check declares (known: {', '.join(sorted(declared))})")
            elif slug not in seen:
                problems[item.nodeid] = (f"{where(item)}: check '{info.slug}' depends on '{slug}', which is "
                                         "declared after it; move the dependency above")
        seen.add(info.slug)
    return problems

GENERIC_FAILURE = {
    "en": "This check did not pass.",
    "ja": "このチェックに合格しませんでした。",
}
LEARNER_RAISED = {
    "en": "Your code raised {error} on line {line}.",
    "ja": "提出されたコードの {line} 行目で {error} が発生しました。",
}
LEARNER_RAISED_NO_LINE = {
    "en": "Your code raised {error}.",
    "ja": "提出されたコードで {error} が発生しました。",
}


STOPPED_BEFORE = {
    "en": "Not checked: your code had already been stopped.",
    "ja": "未確認：コードはすでに停止されていました。",
}
FIRST_LOOP = {
    "en": "The first loop of your code is on line {line}.",
    "ja": "コードの最初のループは {line} 行目です。",
}


def first_loop_line(source: str) -> int | None:
    """The line of the learner's first while or for loop: where to start looking after a time-out."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    loops = [node.lineno for node in ast.walk(tree) if isinstance(node, (ast.While, ast.For, ast.AsyncFor))]
    return min(loops) if loops else None


def innermost_loop(source: str, line: int) -> int | None:
    """The line of the innermost while/for loop whose statement spans `line`, if any."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    loops = [node for node in ast.walk(tree) if isinstance(node, (ast.While, ast.For, ast.AsyncFor))
             and node.lineno <= line <= (node.end_lineno or node.lineno)]
    return max((node.lineno for node in loops), default=None)


def timeout_message(lang: str, limit: str, source: str, line: int | None) -> str:
    """A time-out in the learner's language: the limit, then the line the code was still running
    (the runner's report) and the loop around it; without a report, where the first loop is."""
    message = run_error("timeout", lang, limit=limit)
    if line is not None:
        return f"{message} {still_running(lang, line, innermost_loop(source, line))}"
    first = first_loop_line(source)
    return f"{message} {localize(FIRST_LOOP, lang).format(line=first)}" if first else message


LANGS = ("en", "ja")


def _fixture_problem(error: pytest.FixtureLookupError) -> str:
    """'tests/test_x.py:12: fixture 'model' not found' from pytest's lookup error."""
    request = error.request
    function = getattr(request, "function", None)
    code = getattr(function, "__code__", None)
    path, line = (code.co_filename, code.co_firstlineno) if code else ("", 0)
    where_ = f"tests/{path.rsplit('/tests/', 1)[1]}:{line}" if "/tests/" in path else "tests"
    return f"{where_}: fixture '{error.argname}' not found"


class GraderPlugin:
    """Holds the learner handle, serves fixtures and turns reports into results, in file order."""

    def __init__(self, exercise: Exercise, learner: Learner, lang: str):
        # Underscored: pytest reads plugin attributes as fixtures, and these names are fixtures.
        self._exercise = exercise
        self._learner = learner
        self._lang = lang
        self.results: list[TestResult] = []
        self._fatal_told = False  # a stopped run is reported once, by the first check it stopped
        self._by_slug: dict[str, TestResult] = {}
        self._blocked: dict[str, str] = {}  # item id -> the slug whose failure skipped it
        self._solution: ModuleType | None = None
        self.problems: dict[str, str] = {}
        # The author's mistakes this run met, each 'tests/<file>:<line>: <cause>' (grader.authoring):
        # a module that cannot be collected, a check declared wrong, a fixture that does not exist.
        self.authoring: list[str] = []
        self._raised: dict[str, Exception] = {}  # node id -> what importing it raised

    # -- fixtures --------------------------------------------------------------------------
    @pytest.fixture(scope="session")
    def learner(self) -> Learner:
        return self._learner

    @pytest.fixture(scope="session")
    def exercise(self) -> Exercise:
        return self._exercise

    @pytest.fixture(scope="session")
    def lang(self) -> str:
        return self._lang

    @pytest.fixture(scope="session")
    def solution(self) -> ModuleType:
        """The reference solution, imported here in the trusted harness, never in the learner's process."""
        if self._solution is None:
            spec = importlib.util.spec_from_file_location("reference_solution",
                                                          self._exercise.solution_path)
            assert spec and spec.loader
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            self._solution = module
        return self._solution

    # -- hooks -----------------------------------------------------------------------------
    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector):  # type: ignore[no-untyped-def]
        # Keep what a module raised on import: the report keeps only text, without the line of a
        # TypeError raised inside the grader's @check (pytest's own CollectError text has it).
        collect = collector.collect

        def kept() -> Any:
            try:
                return collect()
            except Exception as exc:
                if not isinstance(exc, pytest.Collector.CollectError):
                    self._raised[collector.nodeid] = exc
                raise

        collector.collect = kept  # type: ignore[method-assign]
        return (yield)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            raised = self._raised.get(report.nodeid)
            tests = self._exercise.tests_dir
            self.authoring.append(raised_error(raised, tests, report.nodeid) if raised is not None
                                  else collect_error(str(report.longrepr), tests, report.nodeid))

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        # File order, then definition order: the learner reads checks in the author's order.
        items.sort(key=lambda item: (str(item.path), item.reportinfo()[1] or 0))
        self.problems = authoring_problems(items)

    @pytest.hookimpl(tryfirst=True)  # before fixtures are set up: a skipped check costs nothing
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        info = self._info(item)
        if item.nodeid in self.problems:
            raise AuthoringError(self.problems[item.nodeid])
        if self._learner.fatal is not None:
            raise NotChecked(STOPPED_BEFORE)  # both languages kept, as for any check not checked
        for slug in info.depends:
            earlier = self._by_slug.get(slug)
            if earlier is None or earlier.status != "pass":
                self._blocked[item.nodeid] = slug  # the document says which, as data (blocked_by)
                pytest.skip(f"depends on '{slug}'")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]):  # type: ignore[no-untyped-def]
        outcome = yield
        report = outcome.get_result()
        if call.excinfo is not None and isinstance(call.excinfo.value, NotChecked):
            # The subject of the check never happened: a skip that says why, in the learner's language.
            report.outcome = "skipped"
            report.longrepr = (str(item.path), 0, localize(call.excinfo.value.message, self._lang))
            report.unverifiable = isinstance(call.excinfo.value, CannotVerifyHere)  # type: ignore[attr-defined]
            item._not_checked = call.excinfo.value.message  # type: ignore[attr-defined]  # both languages
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self._record(item, report, call)
        if self._learner.fatal is not None:
            item.session.shouldstop = str(self._learner.fatal)

    def _info(self, item: pytest.Item) -> CheckInfo:
        return item_info(item)

    def _record(self, item: pytest.Item, report: pytest.TestReport, call: pytest.CallInfo[Any]) -> None:
        info = self._info(item)
        told = self._fatal_told
        result = self._describe(item, report, call, info, self._lang)
        # The other language too, so a page shows the feedback in the reader's current language
        # (issue 25: feedback stayed in the language it was graded in).
        self._fatal_told, graded_lang = told, self._lang
        other = next(lang for lang in LANGS if lang != graded_lang)
        try:
            self._lang = other
            alt = self._describe(item, report, call, info, other)
        finally:
            self._lang = graded_lang
        result.texts = {other: {"title": alt.title, "message": alt.message, "hint": alt.hint}}
        result.points, result.max_points = settle(result.status, info.points, info.given,
                                                  unverifiable=result.unverifiable)
        self.results.append(result)
        self._by_slug.setdefault(info.slug, result)

    def _describe(self, item: pytest.Item, report: pytest.TestReport, call: pytest.CallInfo[Any],
                  info: CheckInfo, lang: str) -> TestResult:
        result = TestResult(name=item.name, check=info.slug, title=localize(info.title, lang),
                            status="pass", given=info.given)
        if report.skipped:
            result.status = "skip"
            result.blocked_by = self._blocked.get(item.nodeid)
            longrepr = report.longrepr
            not_checked = getattr(item, "_not_checked", None)
            if not_checked is not None:
                result.message = localize(not_checked, lang)
            else:
                result.message = str(longrepr[2]).removeprefix("Skipped: ") if isinstance(longrepr, tuple) else ""
            result.unverifiable = getattr(report, "unverifiable", False) is True
        elif not report.passed:
            self._describe_failure(result, info, call.excinfo)
        return result

    def _describe_fatal(self, result: TestResult, fatal: LearnerFatal) -> None:
        """The run was stopped (time, memory, output): the first check it hit says so once, in the
        learner's language and with a line to look at; the checks after it were not run. A time-out
        once repeated "time limit of 30 s exceeded" on every card, in English, with a generic hint."""
        result.hint = ""
        if self._fatal_told:
            result.status = "skip"
            result.message = localize(STOPPED_BEFORE, self._lang)
            return
        self._fatal_told = True
        limits = self._exercise.config.limits
        limit = {"timeout": f"{limits.time_s:g}", "memory": str(limits.memory_mb),
                 "output-limit": str(limits.output_kb)}.get(fatal.kind, "")
        result.status = "error"
        result.line = fatal.line or (first_loop_line(self._learner.source) if fatal.kind == "timeout" else None)
        if fatal.kind == "timeout":
            result.message = timeout_message(self._lang, limit, self._learner.source, fatal.line)
        elif fatal.kind in RUN_ERRORS:
            result.message = run_error(fatal.kind, self._lang, limit=limit, detail=str(fatal), line=fatal.line)
        else:
            result.message = str(fatal)

    def _describe_failure(self, result: TestResult, info: CheckInfo, excinfo: Any) -> None:
        error = excinfo.value if excinfo is not None else None
        result.status = "fail"
        result.hint = localize(info.hint, self._lang)
        if isinstance(error, Feedback):
            result.message = localize(error.message, self._lang)
            result.line = error.line
            if error.hint is not None:
                result.hint = localize(error.hint, self._lang)
        elif isinstance(error, (AuthoringError, pytest.FixtureLookupError)):
            result.status = "error"
            result.hint = ""
            detail = str(error) if isinstance(error, AuthoringError) else _fixture_problem(error)
            result.message = f"The exercise's tests are broken: {detail}"
            if detail not in self.authoring:
                self.authoring.append(detail)
        elif isinstance(error, LearnerFatal):
            self._describe_fatal(result, error)
        elif isinstance(error, LearnerError) and (name := missing_name(error.error)):
            message, result.line = describe_missing(name, self._learner.source)
            result.message = localize(message, self._lang)
        elif isinstance(error, LearnerError):
            line = error.line
            template = LEARNER_RAISED if line else LEARNER_RAISED_NO_LINE
            result.message = localize(template, self._lang).format(error=str(error), line=line)
            result.line = line
        elif isinstance(error, AssertionError):
            detail = str(error).split("\n")[0] if str(error) else ""
            generic = localize(GENERIC_FAILURE, self._lang)
            result.message = f"{generic} {detail}".strip() if detail and "assert " not in detail else generic
        else:  # the test itself broke: say so plainly rather than blame the learner
            result.status = "error"
            result.message = f"The check could not run ({type(error).__name__}: {error})."
