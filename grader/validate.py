"""Instructor check of exercise folders: schema, languages, texts, the solution passes, nothing else does."""

from __future__ import annotations

import ast
import shutil
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from grader.authoring import static_problems
from grader.grading import grade_code, run_code
from grader.languages import language_problems, style_warnings
from grader.leaks import folder_problems as text_problems
from grader.loader import CONFIG_FILE, Exercise, ExerciseLoadError, ExerciseSet, load_exercise, load_exercises
from grader.messages import RUN_ERRORS
from grader.mutants import Mutant, emptied, mutants
from grader.quiz import validate_quiz
from grader.starters import LOCALIZED, code_differences, localized_name

AUTHORING = "authoring error: "  # how a problem that keeps the folder from learners begins


@dataclass
class FolderReport:
    """The validation state of one exercise folder."""

    folder: str
    ok: bool
    problems: list[str] = field(default_factory=list)
    mutant_tally: str = ""  # with mutants: how many were graded, passed, and declared equivalent
    # Said, never failing the folder: the house style of a course that does not declare it.
    warnings: list[str] = field(default_factory=list)

    @property
    def broken(self) -> bool:
        """The folder cannot be graded at all (its tests do not collect): learners must not see it."""
        return any(problem.startswith(AUTHORING) for problem in self.problems)


def _not_passed(doc: dict) -> str:
    """The checks that did not pass, each with what it said (an authoring error names file:line)."""
    return "; ".join(f"{t['check']} {t['status']}: {t['message'][:200]}".rstrip(": ")
                     for t in doc["tests"] if t["status"] != "pass")


def _authoring(doc: dict) -> list[str]:
    """The grading met the author's mistakes: each 'authoring error: tests/x.py:3: cause'."""
    if doc.get("error_kind") != "authoring":
        return []
    before, after = RUN_ERRORS["authoring"]["en"].split("{detail}")  # validate grades in English
    detail = doc["message"].removeprefix(before).removesuffix(after)
    return [AUTHORING + part for part in detail.split("; ") if part]


def _check_solution(solved: dict) -> list[str]:
    if solved["status"] != "pass" or solved["score"] != 1.0 or not solved["tests"]:
        return [f"solution.py must pass every check with score 1.0 but got {solved['status']}"
                f" {solved['score']:.2f} ({solved.get('error_kind') or _not_passed(solved)})"
                + (f": {solved['message'][:300]}" if solved["message"] else "")]
    if any(t["status"] == "skip" and not t.get("unverifiable") for t in solved["tests"]):  # a check never ran
        return [f"solution.py skipped checks: {_not_passed(solved)}"]
    return []


def _check_starter(started: dict) -> list[str]:
    """The starter fails, scores 0, and passes exactly the checks declared given=True."""
    if started["status"] != "fail":
        return [f"starter.py must fail its checks but got {started['status']}"
                f" {started.get('error_kind') or ''}".rstrip()]
    problems = []
    earned = [t["check"] for t in started["tests"] if t["status"] == "pass" and not t.get("given")]
    if earned:
        problems.append(f"starter.py passes {', '.join(earned)} and so scores {started['score']:.2f}: "
                        "declare what the starter already does right with given=True")
    unearned = [t["check"] for t in started["tests"] if t.get("given") and t["status"] != "pass"]
    if unearned:
        problems.append(f"{', '.join(unearned)}: declared given=True but starter.py does not pass "
                        "them, so fixing them would earn nothing; drop given=True")
    if not any(not t.get("given") for t in started["tests"]):
        problems.append("every check is given=True: nothing the learner does can earn a point")
    return problems


def _check_no_work(empty: dict, body: str = "pass") -> list[str]:
    if empty["status"] == "pass" or empty["score"] != 0:
        earned = [t["check"] for t in empty["tests"] if t["points"]]
        return [f"an empty function body scores {empty['score']:.2f} (body `{body}`, from "
                f"{', '.join(earned) or 'nothing'}): a check passes without any work; make it fail or say "
                "'not checked' when its subject never happened"]
    return []


# A check run (not skipped) on fewer wrong versions than this is not reported as never failing: one
# passing run is one sample (loop-checkpoint's resumes-exactly runs on the one mutant whose
# dependencies hold, and passes there rightly).
MIN_RUNS_FOR_NEVER_FAILS = 2


def never_failing(solved: dict, others: list[tuple[str, dict]]) -> list[str]:
    """A check that passes on the solution and never fails on anything else graded (the starter,
    empty bodies, every mutant) cannot tell right from wrong: behind `depends` it is skipped on
    the starter, so only this comparison sees it. Given checks are meant to pass on the starter."""
    graded = [(what, doc) for what, doc in others if doc["tests"] and doc.get("error_kind") is None]
    problems = []
    for test in solved["tests"]:
        if test.get("given") or test["status"] != "pass":
            continue
        statuses = [(what, t["status"]) for what, doc in graded for t in doc["tests"] if t["check"] == test["check"]]
        passed_on = [what for what, status in statuses if status == "pass"]
        if len(passed_on) >= MIN_RUNS_FOR_NEVER_FAILS and all(status in ("pass", "skip") for _, status in statuses):
            skipped = len(statuses) - len(passed_on)
            problems.append(f"check '{test['check']}' never fails: it passes on {_listed(passed_on)}"
                            + (f" and was skipped on the other {skipped}" if skipped else "")
                            + "; it cannot tell right from wrong: make it fail when its subject is wrong")
    return problems


def _listed(whats: list[str]) -> str:
    counts = {what: whats.count(what) for what in dict.fromkeys(whats)}
    return ", ".join(f"{n} {what}s" if n > 1 else f"the {what}" for what, n in counts.items())


# What a mutant's problem says; _tally counts them by these words.
PASSES_EVERY_CHECK = "passes every check"
FAILS_AT_FULL_SCORE = "yet scores 100 %"


def _check_mutant(mutant: Mutant, doc: dict) -> list[str]:
    """A mutant of the solution must fail a check, and a failing grading never shows 100 %."""
    where = f"mutant of solution.py line {mutant.line} ({mutant.change})"
    if doc.get("error_kind") == "internal":
        return [f"{where}: the grader failed: {doc['message'][:200]}"]
    if doc["status"] == "pass":
        return [f"{where} {PASSES_EVERY_CHECK}: the checks cannot see this mistake; add a check for it"]
    if doc["score"] >= 1.0:
        return [f"{where} fails ({_not_passed(doc)}) {FAILS_AT_FULL_SCORE}"]
    return []


def mutants_to_grade(exercise: Exercise, solution: str) -> tuple[list[Mutant], list[str]]:
    """The solution's mutants less those the folder declares equivalent; a stale declaration is a problem."""
    found = mutants(solution)
    declared = {(e.line, e.change) for e in exercise.config.equivalent_mutants}
    stale = declared - {(m.line, m.change) for m in found}
    problems = [f"exercise.toml: equivalent_mutants names line {line} ({change}), which is no mutant of "
                "solution.py any more; remove or correct it" for line, change in sorted(stale)]
    return [m for m in found if (m.line, m.change) not in declared], problems


class _NoDepends(ast.NodeTransformer):
    """Drops `depends=` from every check(...) call: each check then runs whatever came before it."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name == "check":
            node.keywords = [k for k in node.keywords if k.arg != "depends"]
        return node


@contextmanager
def without_depends(exercise: Exercise) -> Iterator[Exercise | None]:
    """A temporary copy of the folder whose checks declare no `depends`; None when none does."""
    sources = {p: p.read_text(encoding="utf-8") for p in sorted(exercise.tests_dir.rglob("*.py"))}
    if not any("depends" in text for text in sources.values()):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="validate-") as scratch:
        copy = Path(scratch) / exercise.path.name
        shutil.copytree(exercise.path, copy, ignore=shutil.ignore_patterns("__pycache__"))
        for path, text in sources.items():
            tree = _NoDepends().visit(ast.parse(text))
            (copy / path.relative_to(exercise.path)).write_text(ast.unparse(ast.fix_missing_locations(tree)),
                                                                encoding="utf-8")
        yield load_exercise(copy)


def check_code(exercise: Exercise, sandbox: str | None, *, with_mutants: bool = False,
               workers: int = 2, background: bool = False) -> list[str]:
    """The proof that scores mean what they say, for one code exercise.

    The solution scores 1.0; the untouched starter and an empty body score 0; the starter passes
    exactly its given checks; no check passes on everything (grading the wrong versions again
    with `depends` dropped, so a check behind another is seen too); with `with_mutants`, every
    mutant of the solution (grader.mutants) fails at least one check and scores below 1.0. With
    `background` (the web app's instructor check), each grading goes through the background
    lane (grader.sandboxes.lane).
    First, no prompt, hint or check text may hand over a solution line or name a check id (grader.leaks).
    """
    solution = exercise.solution_path.read_text(encoding="utf-8")
    broken = static_problems(exercise.path)
    if broken:  # nothing would collect: grading it only repeats these; the texts are still read
        return [AUTHORING + problem for problem in broken] + text_problems(exercise.path) + language_problems(exercise)
    jobs: list[tuple[str, str, Mutant | None]] = [
        ("solution", solution, None), ("starter", exercise.starter, None),
        ("empty", emptied(exercise.starter), None), ("raising", emptied(exercise.starter, raising=True), None)]
    problems: list[str] = text_problems(exercise.path) + language_problems(exercise)
    # A translated starter (starter.ja.py): the same code, and graded like the English one.
    for lang in LOCALIZED:
        path = exercise.path / localized_name(lang)
        if path.is_file():
            localized = path.read_text(encoding="utf-8")
            problems += code_differences(exercise.starter, localized, path.name)
            jobs.append((f"starter-{lang}", localized, None))
    if with_mutants:
        graded, stale = mutants_to_grade(exercise, solution)
        problems += stale
        jobs += [("mutant", m.code, m) for m in graded]
    # The wrong versions again with every `depends` dropped: a check that waits for another is
    # skipped on all of them otherwise, and one that passes on everything would go unseen.
    free = [("starter without depends", exercise.starter), ("empty body without depends", jobs[2][1]),
            ("raising body without depends", jobs[3][1])]
    with without_depends(exercise) as loose, ThreadPoolExecutor(max_workers=workers) as pool:
        docs = list(pool.map(lambda job: grade_code(exercise, job[1], sandbox=sandbox,
                                                    background=background), jobs))
        freed = [] if loose is None else list(pool.map(
            lambda job: (job[0], grade_code(loose, job[1], sandbox=sandbox, background=background)), free))
    authoring = next((found for doc in docs if (found := _authoring(doc))), [])
    if authoring:  # every grading meets the same broken tests: say it once
        return authoring + problems
    english = next(doc for (what, _c, _m), doc in zip(jobs, docs, strict=True) if what == "starter")
    problems += _check_sample_call(exercise, solution, sandbox)
    for (what, _code, mutant), doc in zip(jobs, docs, strict=True):
        if what.startswith("starter-"):
            problems += _check_localized_starter(what.removeprefix("starter-"), doc, english)
        elif what == "solution":
            problems += _check_solution(doc)
        elif what == "starter":
            problems += _check_starter(doc)
        elif what == "empty":
            problems += _check_no_work(doc)
        elif what == "raising":
            problems += _check_no_work(doc, "raise NotImplementedError")
        elif mutant is not None:
            problems += _check_mutant(mutant, doc)
    if docs[0]["status"] == "pass":
        problems += never_failing(docs[0], [(what, doc) for (what, _c, _m), doc in zip(jobs[1:], docs[1:],
                                                                                        strict=True)] + freed)
    return problems


def _check_sample_call(exercise: Exercise, solution: str, sandbox: str | None) -> list[str]:
    """What Run offers a learner to add (exercise.toml's sample_call) runs after the solution
    in the exercise's sandbox and prints something."""
    call = exercise.config.sample_call
    if not call:
        return []
    ran = run_code(exercise, f"{solution}\n\n{call}\n", sandbox=sandbox)
    if ran.get("status") != "ok":
        error = ran.get("error") or {}
        return [f"exercise.toml: sample_call fails after solution.py: {error.get('message', '')}".rstrip(": ")]
    if not str(ran.get("output", "")).strip():
        return ["exercise.toml: sample_call prints nothing after solution.py"]
    return []


def _passed(doc: dict) -> set[str]:
    return {t.get("check") for t in doc.get("tests", []) if t.get("status") == "pass"}


def _check_localized_starter(lang: str, doc: dict, english: dict) -> list[str]:
    """A translated starter fails exactly as starter.py does: status, score and passing checks."""
    same = (doc.get("status"), doc.get("score"), _passed(doc)) == (
        english.get("status"), english.get("score"), _passed(english))
    if same:
        return []
    return [f"{localized_name(lang)} must fail like starter.py, but it got {doc.get('status')} "
            f"({doc.get('score')}) where starter.py got {english.get('status')} ({english.get('score')})"]


def _validate_quiz(exercise: Exercise, sandbox: str | None, with_mutants: bool, background: bool) -> list[str]:
    return validate_quiz(exercise) + language_problems(exercise)  # no sandbox: grader.quiz grades a quiz


def _validate_code(exercise: Exercise, sandbox: str | None, with_mutants: bool, background: bool) -> list[str]:
    return check_code(exercise, sandbox, with_mutants=with_mutants, background=background)


# One validator per kind of grader.kinds.KINDS: (exercise, sandbox, mutants, background) -> problems.
VALIDATORS: dict[str, Callable[[Exercise, str | None, bool, bool], list[str]]] = {
    "code": _validate_code,
    "quiz": _validate_quiz,
}


def check_exercise(exercise: Exercise, sandbox: str | None = None, *, with_mutants: bool = False,
                   background: bool = False) -> FolderReport:
    """One folder's report; `with_mutants` also grades the solution's mutants (many gradings)."""
    try:
        problems = list(VALIDATORS[exercise.kind.name](exercise, sandbox, with_mutants, background))
    except Exception as exc:  # noqa: BLE001 -- one broken folder must not hide the others
        problems = [f"could not be checked: {type(exc).__name__}: {exc}"]
    return FolderReport(folder=exercise.id, ok=not problems, problems=problems,
                        mutant_tally=_tally(exercise, problems) if with_mutants else "",
                        warnings=style_warnings(exercise))


def _tally(exercise: Exercise, problems: list[str]) -> str:
    """'N mutants graded: P pass every check, H fail at 100 %; E declared equivalent' (code only)."""
    if exercise.config.kind != "code" or not exercise.solution_path.is_file():
        return ""
    graded, _ = mutants_to_grade(exercise, exercise.solution_path.read_text(encoding="utf-8"))
    passing = sum(1 for p in problems if p.startswith("mutant of") and PASSES_EVERY_CHECK in p)
    at_full = sum(1 for p in problems if p.startswith("mutant of") and FAILS_AT_FULL_SCORE in p)
    return (f"{len(graded)} mutants graded: {passing} pass every check, {at_full} fail at 100 %; "
            f"{len(exercise.config.equivalent_mutants)} declared equivalent")


LOOKS_LIKE_AN_EXERCISE = ("prompt.md", "solution.py", "starter.py", "quiz.toml", "tests")


def _found(root: Path) -> ExerciseSet:
    """`root` as one exercise folder (it holds exercise.toml, or the files of one) or a folder of them."""
    root = root.resolve()  # `grader validate .` inside a folder: its name is the id to match
    if (root / CONFIG_FILE).is_file() or any((root / name).exists() for name in LOOKS_LIKE_AN_EXERCISE):
        found = ExerciseSet()
        try:
            exercise = load_exercise(root)
            found.exercises[exercise.id] = exercise
        except ExerciseLoadError as exc:
            found.errors.append(exc)
        return found
    return load_exercises(root)


def validate_all(root: Path, sandbox: str | None = None, workers: int = 2, *,
                 with_mutants: bool = False) -> Iterator[FolderReport]:
    """Every folder's report: load errors first, then each exercise in id order.

    `root` is a folder of exercise folders, or one exercise folder (it holds exercise.toml, or
    the prompt, solution or tests of one: a missing exercise.toml is then named as such).
    """
    found = _found(Path(root))
    for error in found.errors:
        yield FolderReport(folder=error.folder.name, ok=False,
                           problems=[f"{error.file}: {problem}" for problem in error.problems])
    with ThreadPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(lambda e: check_exercise(e, sandbox, with_mutants=with_mutants),
                            sorted(found.exercises.values(), key=lambda e: e.id))
