"""Instructor check of exercise folders: schema, the solution passes, the starter does not."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from grader.api import grade_code
from grader.loader import Exercise, load_exercises


@dataclass
class FolderReport:
    """The validation state of one exercise folder."""

    folder: str
    ok: bool
    problems: list[str] = field(default_factory=list)


def _not_passed(doc: dict) -> str:
    """The checks that did not pass, each with what it said (an authoring error names file:line)."""
    return "; ".join(f"{t['check']} {t['status']}: {t['message'][:200]}".rstrip(": ")
                     for t in doc["tests"] if t["status"] != "pass")


def check_code(exercise: Exercise, sandbox: str | None) -> list[str]:
    """The solution passes every check (none skipped, score 1.0); the untouched starter scores 0."""
    problems = []
    solved = grade_code(exercise, exercise.solution_path.read_text(encoding="utf-8"), sandbox=sandbox)
    if solved["status"] != "pass" or solved["score"] != 1.0 or not solved["tests"]:
        problems.append(f"solution.py must pass every check with score 1.0 but got {solved['status']}"
                        f" {solved['score']:.2f} ({solved.get('error_kind') or _not_passed(solved)})"
                        + (f": {solved['message'][:300]}" if solved["message"] else ""))
    elif any(t["status"] == "skip" for t in solved["tests"]):  # a skip in the solution: a check never runs
        problems.append(f"solution.py skipped checks: {_not_passed(solved)}")
    started = grade_code(exercise, exercise.starter, sandbox=sandbox)
    if started["status"] != "fail":
        problems.append(f"starter.py must fail its checks but got {started['status']}"
                        f" {started.get('error_kind') or ''}".rstrip())
    elif started["score"] != 0:
        earned = [t["check"] for t in started["tests"] if t["points"]]
        problems.append(f"starter.py must score 0 but scores {started['score']:.2f} from "
                        f"{', '.join(earned)}; give checks the starter already passes points=0")
    return problems


def check_exercise(exercise: Exercise, sandbox: str | None = None) -> FolderReport:
    try:
        problems = list(exercise.kind.validator(exercise, sandbox))
    except Exception as exc:  # noqa: BLE001 -- one broken folder must not hide the others
        problems = [f"could not be checked: {type(exc).__name__}: {exc}"]
    return FolderReport(folder=exercise.id, ok=not problems, problems=problems)


def validate_all(root: Path, sandbox: str | None = None, workers: int = 2) -> Iterator[FolderReport]:
    """Every folder's report: load errors first, then each exercise in id order."""
    found = load_exercises(root)
    for error in found.errors:
        yield FolderReport(folder=error.folder.name, ok=False,
                           problems=[f"{error.file}: {problem}" for problem in error.problems])
    with ThreadPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(lambda e: check_exercise(e, sandbox),
                            sorted(found.exercises.values(), key=lambda e: e.id))
