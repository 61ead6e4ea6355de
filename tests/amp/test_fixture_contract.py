"""What docs/exercises.md says amp.fixtures() holds is what a run holds: the guide's table cannot drift."""

from __future__ import annotations

import re
from pathlib import Path

from grader.amp.events import KINDS
from grader.amp.kit import scenario_of
from grader.amp.outcome import reference_run
from grader.amp.review import Review
from tests.amp.amp_helpers import load_source, run_source

REPO = Path(__file__).resolve().parents[2]
GUIDE = (REPO / "docs" / "exercises.md").read_text(encoding="utf-8")
FLAGSHIP = REPO / "exercises" / "amp-train-one-epoch"


def guide_row(fixture: str) -> str:
    return next(line for line in GUIDE.splitlines() if line.startswith(f"| `{fixture}` |"))


def keys_named(row: str) -> set[str]:
    """The top-level keys of a row: the `names` outside any parentheses of its last cell."""
    cell, depth, keys = row.split(" | ")[2], 0, set()
    for match in re.finditer(r"[()]|`(\w+)`", cell):
        if match.group(0) == "(":
            depth += 1
        elif match.group(0) == ")":
            depth -= 1
        elif depth == 0:
            keys.add(match.group(1))
    return keys


def test_the_guide_names_every_key_of_trained_and_reference_and_no_other() -> None:
    declared, entry = scenario_of(FLAGSHIP)
    params = declared.params(entry)
    solution = (FLAGSHIP / "solution.py").read_text(encoding="utf-8")
    trained = run_source(solution, **params)
    assert keys_named(guide_row("trained")) == set(trained)
    reference = {**reference_run(load_source(solution), params, like=trained), "learner": trained}
    assert keys_named(guide_row("reference")) - {"trained"} | set(trained) == set(reference)
    assert trained["returned_type"] == "float" and isinstance(trained["returned"], float)
    # Every event kind the tracer emits is named, and nothing else.
    named = set(re.findall(r"`([a-z-]+)`", guide_row("trained").split("kinds ")[1].split(")")[0]))
    assert named == set(KINDS)
    review = Review(trained, solution)
    assert review.trained and review.finding("one-scaler").status == "pass"
    assert review.trace.returned == trained["returned"] and review.trace.batches == trained["batches"]
