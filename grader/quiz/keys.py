"""Numeric keys recomputed: a question's `compute` code is run and its value compared with the key."""

from __future__ import annotations

import importlib.util
import json
import logging
import math
import subprocess
import sys

from grader.quiz.schema import QuizConfig

log = logging.getLogger(__name__)
COMPUTE_TIMEOUT_S = 120  # torch's import alone takes seconds on a busy host
# Runs in a child interpreter: the author's code never runs in the web app's or the CLI's process.
_RUNNER = r'''
import ast, json, math, sys
import torch
results = {}
for qid, code in json.load(sys.stdin).items():
    try:
        tree = ast.parse(code)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        if last is None:
            raise ValueError("the last line must be an expression: the answer")
        scope = {"torch": torch, "math": math}
        exec(compile(tree, "compute", "exec"), scope)
        value = eval(compile(ast.Expression(last.value), "compute", "eval"), scope)
        results[qid] = {"value": float(value)}
    except Exception as exc:
        results[qid] = {"error": f"{type(exc).__name__}: {exc}"}
print(json.dumps(results))
'''


def computed_values(codes: dict[str, str]) -> dict[str, dict[str, object]]:
    """Per question id, {"value": float} or {"error": str}, from one child interpreter."""
    if not codes:
        return {}
    if importlib.util.find_spec("torch") is None:
        # A host without torch (the web image's Celery workers, whose learners' code runs in
        # sandboxes that have it) cannot recompute a key: it says so rather than failing the
        # folder for the host's sake. `grader validate` where torch is (CI, an author's
        # machine) recomputes them.
        log.warning("numeric keys not recomputed: torch is not installed in this interpreter")
        return {}
    completed = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(codes), capture_output=True,
                               text=True, timeout=COMPUTE_TIMEOUT_S, check=False)
    if completed.returncode != 0:
        tail = (completed.stderr.strip().splitlines() or ["no output"])[-1]
        return {qid: {"error": f"the computation did not finish: {tail}"} for qid in codes}
    return json.loads(completed.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def key_problems(config: QuizConfig, where: str) -> list[str]:
    """A problem for each numeric key its own `compute` disagrees with (beyond the tolerance)."""
    questions = {q.id: q for q in config.questions if q.kind == "numeric" and q.compute}
    problems = []
    for qid, outcome in computed_values({qid: q.compute or "" for qid, q in questions.items()}).items():
        question = questions[qid]
        if "error" in outcome:
            problems.append(f"{where}: question '{qid}': its compute code failed: {outcome['error']}")
            continue
        value = float(outcome["value"])  # type: ignore[arg-type]
        key = float(question.answer)  # type: ignore[arg-type]
        if not math.isclose(value, key, rel_tol=1e-9, abs_tol=max(question.tolerance, 1e-9)):
            problems.append(f"{where}: question '{qid}': the key is {key:g} but its compute code gives "
                            f"{value:g}; correct the key or the code")
    return problems


def points_problems(config: QuizConfig, declared: int, where: str) -> list[str]:
    """The quiz's points in exercise.toml must be the sum of its questions' points."""
    total = sum(q.points for q in config.questions)
    if total == declared:
        return []
    return [f"{where}: points = {declared}, but the questions of quiz.toml add up to {total}; "
            "make them agree (the score is the questions' points over their sum)"]
