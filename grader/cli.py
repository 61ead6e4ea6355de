"""Command line: `grade` one submission, `validate` exercise folders, `harness` (inside a sandbox)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from grader.grading import grade_code
from grader.loader import ExerciseLoadError, load_exercise

MAX_SUBMISSION_BYTES = 64 * 1024
DEFAULT_EXERCISES = Path(__file__).resolve().parent.parent / "exercises"


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def read_submission(path: Path) -> str:
    """The submission's text, or ValueError saying why it cannot be graded."""
    data = path.read_bytes()
    if len(data) > MAX_SUBMISSION_BYTES:
        raise ValueError(f"{path} is {len(data)} bytes; submissions are limited to "
                         f"{MAX_SUBMISSION_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def cmd_grade(options: argparse.Namespace) -> int:
    try:
        exercise = load_exercise(Path(options.exercise))
    except ExerciseLoadError as exc:
        return _fail(str(exc))
    try:
        code = read_submission(Path(options.submission))
    except (OSError, ValueError) as exc:
        return _fail(str(exc))
    if not exercise.kind.accepts_code:
        return _fail(f"{exercise.id} is a {exercise.config.kind}; it has no code to grade")
    # One grading per command: a warm pool would start a sandbox only to end it at exit.
    os.environ.setdefault("GRADER_POOL_SIZE", "0")
    doc = grade_code(exercise, code, lang=options.lang, sandbox=options.sandbox)
    if options.json:
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    else:
        print(f"{doc['exercise']}: {doc['status']} (score {doc['score']:.2f})"
              + (f" [{doc['error_kind']}]" if doc["error_kind"] else ""))
        if doc["message"]:
            print(doc["message"])
        for test in doc["tests"]:
            where = f" (line {test['line']})" if test["line"] else ""
            print(f"  [{test['status']:>5}] {test['title']}{where}")
            if test["status"] in ("fail", "error"):
                print(f"          {test['message']}")
                if test["hint"]:
                    print(f"          hint: {test['hint']}")
    return 0


def cmd_validate(options: argparse.Namespace) -> int:
    from grader.validate import validate_all

    root = Path(options.exercises)
    if not root.is_dir():
        return _fail(f"{root} is not a directory")
    # Mutants are many gradings: a pool would only add sandboxes started and thrown away.
    os.environ.setdefault("GRADER_POOL_SIZE", "0")
    failures = checked = 0
    for report in validate_all(root, sandbox=options.sandbox, with_mutants=options.mutants):
        checked += 1
        tally = f" ({report.mutant_tally})" if report.mutant_tally else ""
        print(f"{'ok  ' if report.ok else 'FAIL'} {report.folder}{tally}")
        for problem in report.problems:
            print(f"       {problem}")
        failures += not report.ok
    if not checked:
        return _fail(f"{root} holds no exercise folder (a folder with exercise.toml) and is not one")
    print(f"{failures} folder(s) with problems" if failures else "all exercise folders are valid")
    return 1 if failures else 0


def cmd_harness(options: argparse.Namespace) -> int:
    from grader.harness import run

    job = None
    if options.jail is not None:  # the runner enters this jail; this process takes the harness's layers
        from grader.sandboxes import jail

        job = jail.JobJail.from_arg(options.jail)
        jail.harden_harness(os.getppid())  # the sandbox's job thread waits for us
        job.prepare()
    return run(Path(options.exercise), Path(options.submission), Path(options.results),
               lang=options.lang, runner_user=options.runner_user, jail=job)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    grade = commands.add_parser("grade", help="grade one submission")
    grade.add_argument("exercise", help="the exercise folder")
    grade.add_argument("submission", help="the learner's Python file")
    grade.add_argument("--json", action="store_true", help="print the results document")
    grade.add_argument("--sandbox", choices=["local", "docker", "auto"], default=None)
    grade.add_argument("--lang", choices=["en", "ja"], default="en")
    grade.set_defaults(handler=cmd_grade)
    validate = commands.add_parser("validate", help="check one exercise folder, or every folder of a course")
    validate.add_argument("exercises", nargs="?", default=str(DEFAULT_EXERCISES),
                          help="an exercise folder, or a folder of them (default: the course's exercises/)")
    validate.add_argument("--sandbox", choices=["local", "docker", "auto"], default=None)
    validate.add_argument("--no-mutants", dest="mutants", action="store_false",
                          help="skip grading the solution's mutants (quicker, proves less)")
    validate.set_defaults(handler=cmd_validate)
    harness = commands.add_parser("harness", help="(inside a sandbox) run the tests")
    harness.add_argument("exercise")
    harness.add_argument("submission")
    harness.add_argument("--results", required=True)
    harness.add_argument("--lang", choices=["en", "ja"], default="en")
    harness.add_argument("--runner-user", default=None, help="run learner code as this user")
    harness.add_argument("--jail", default=None,
                         help="the job's jail (grader.sandboxes.jail.JobJail.to_arg): the runner enters it")
    harness.set_defaults(handler=cmd_harness)
    return parser


def main(argv: list[str] | None = None) -> int:
    options = build_parser().parse_args(argv)
    return int(options.handler(options))
