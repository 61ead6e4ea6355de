"""The AMP corpus: submissions in corpus/<exercise-id>/, each with its expected verdict in a header.

Header lines at the top of each file:
    # expect: pass                              every check passes
    # expect: fail SLUG [SLUG...]               exactly these checks fail (or error)
    # advice: WORD                              some advice mentions WORD (e.g. "deprecated")
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"
EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
_EXPECT = re.compile(r"^#[ \t]*expect:[ \t]*(pass|fail)[ \t]*(.*)$", re.MULTILINE)
_ADVICE = re.compile(r"^#\s*advice:\s*(\S+)", re.MULTILINE)


@dataclass(frozen=True)
class Case:
    exercise: str
    path: Path
    status: str
    failing: frozenset[str]
    advice: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.exercise}/{self.path.stem}"

    @property
    def code(self) -> str:
        return self.path.read_text(encoding="utf-8")


def parse(exercise: str, path: Path) -> Case:
    text = path.read_text(encoding="utf-8")
    match = _EXPECT.search(text)
    if match is None:
        raise ValueError(f"{path} has no '# expect:' header")
    status, slugs = match.group(1), frozenset(match.group(2).split())
    if (status == "pass") != (not slugs):
        raise ValueError(f"{path}: 'pass' takes no slugs and 'fail' needs at least one")
    return Case(exercise, path, status, slugs, tuple(_ADVICE.findall(text)))


def cases(exercise: str | None = None) -> list[Case]:
    found = []
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        if exercise is None or folder.name == exercise:
            found.extend(parse(folder.name, path) for path in sorted(folder.glob("*.py")))
    return found


def failing_checks(doc: dict) -> frozenset[str]:
    return frozenset(t["check"] for t in doc["tests"] if t["status"] in ("fail", "error"))
