"""The real-world AMP corpus through the real grader (local sandbox): verdict, failing checks, lines.

Loops from public projects (tests/amp/realworld/, see realworld_cases.py), each labelled before it
was graded. Slow: a fresh harness and learner process per loop, a few at a time.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import pytest

from grader.api import grade_code
from grader.loader import load_exercise
from tests.amp.corpus_cases import EXERCISES, failing_checks
from tests.amp.realworld_cases import RealCase, real_cases
from tests.conftest import once_per_run

CASES = real_cases()
RAW_TORCH = ("_scale is None", "No inf checks", "has already been called", "Attempting to unscale",
             "unexpected keyword argument", "has no attribute")


def test_the_realworld_corpus_is_big_enough_and_sourced():
    assert len(CASES) >= 20
    assert {c.case.status for c in CASES} == {"pass", "fail"}
    for real in CASES:
        assert (EXERCISES / real.case.exercise / "exercise.toml").is_file(), real.id
        assert real.source.startswith(("https://github.com/", "a public GitHub file")), real.id


def _grade(root: Path, real: RealCase) -> dict:
    return grade_code(load_exercise(root / real.case.exercise), real.case.code, sandbox="local")


@pytest.fixture(scope="module")
def graded(request: pytest.FixtureRequest, roomy_exercises: Path) -> dict[str, dict]:
    """Every selected loop graded up front, in parallel (see test_amp_corpus.graded)."""
    once_per_run("the real-world AMP corpus grading")
    selected = [item.callspec.params["real"] for item in request.session.items
                if item.module is request.module and hasattr(item, "callspec")]
    workers = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        docs = pool.map(partial(_grade, roomy_exercises), selected)
        return {real.id: doc for real, doc in zip(selected, docs, strict=True)}


@pytest.mark.slow
@pytest.mark.parametrize("real", CASES, ids=[real.id for real in CASES])
def test_realworld_loop_gets_its_labelled_verdict_check_and_line(real: RealCase, graded: dict[str, dict]):
    doc = graded[real.id]
    report = {t["check"]: (t["line"], t["message"]) for t in doc["tests"] if t["status"] != "pass"}
    assert doc["status"] == real.case.status, report
    assert failing_checks(doc) == real.case.failing, report
    assert (doc["score"] == 1.0) == (real.case.status == "pass"), (doc["score"], report)
    tests = {t["check"]: t for t in doc["tests"]}
    for slug, line in real.lines.items():
        assert tests[slug]["line"] == line, (slug, report)
        assert tests[slug]["hint"], (slug, tests[slug])
        assert not any(raw in tests[slug]["message"] for raw in RAW_TORCH), tests[slug]
    for slug, text in real.says:
        assert text in tests[slug]["message"], (slug, text, tests[slug]["message"])
    for word in real.case.advice:
        assert any(word in note for note in doc["advice"]), doc["advice"]
