"""A hint never hands over the solution: no code span in hints*.md is most of a solution line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
CODE_SPAN = re.compile(r"`([^`]+)`")


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def solution_expressions(solution: str) -> list[str]:
    """What the solution's statements compute: the right-hand side of each return and assignment."""
    found = []
    for line in solution.splitlines():
        code = line.split("#")[0].strip()
        match = re.match(r"^(?:return\s+|[\w.\[\], ]+\s*=\s*)(.+)$", code)
        if match and not code.startswith(("def ", "class ", "import ", "from ")):
            found.append(_squeeze(match.group(1)))
    return [e for e in found if len(e) >= 15]


# Naming an API (`requires_grad`, `t.element_size()`) teaches; quoting the expression does not.
API_NAME = re.compile(r"^[\w.]+(\(\))?$")


def gives_away(hint: str, solution: str) -> list[str]:
    """Code spans of the hint, other than bare API names, that are at least half of a solution expression."""
    spans = [_squeeze(s) for s in CODE_SPAN.findall(hint) if not API_NAME.match(_squeeze(s))]
    return [span for span in spans for expr in solution_expressions(solution)
            if len(span) >= 12 and span in expr and len(span) * 2 >= len(expr)]


def test_the_rule_catches_a_solution_line():
    solution = "def f(a, b):\n    return (a[:, None, :] - b[None, :, :]).pow(2).sum(dim=-1)\n"
    assert gives_away("- `a[:, None, :] - b[None, :, :]` then sum", solution)
    assert not gives_away("- index with `None` to add an axis", solution)
    assert not gives_away("- `t.element_size()` gives bytes", "def f(t):\n    return t.element_size()\n")


@pytest.mark.parametrize("folder", [p.parent.name for p in sorted(EXERCISES.glob("*/solution.py"))])
def test_no_hint_is_the_solution(folder):
    solution = (EXERCISES / folder / "solution.py").read_text(encoding="utf-8")
    for name in ("hints.md", "hints.ja.md"):
        file = EXERCISES / folder / name
        if file.is_file():
            assert not gives_away(file.read_text(encoding="utf-8"), solution), f"{folder}/{name}"
