"""The real-world AMP corpus: loops from public projects in realworld/<exercise-id>/, labelled in each file.

Each file keeps its source's structure and bug, and says in its header where it comes from and
what was changed to fit the exercise's signature. Labels, written before the file was graded:

    # source: URL or index id                   where the loop comes from (required)
    # expect: pass | fail SLUG [SLUG...]        the verdict and exactly the checks that fail
    # advice: WORD                              some advice mentions WORD
    # says: SLUG TEXT                           the English message of SLUG contains TEXT
    ...code...  # <- SLUG [SLUG...]             the line each failing check must point at

Every failing check needs a `# <- SLUG` marker on its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.amp.corpus_cases import Case, parse

REALWORLD = Path(__file__).resolve().parent / "realworld"
_SOURCE = re.compile(r"^#\s*source:\s*(\S.*)$", re.MULTILINE)
_SAYS = re.compile(r"^#\s*says:\s*(\S+)\s+(.+?)\s*$", re.MULTILINE)
_MARK = re.compile(r"#\s*<-\s*([a-z0-9 -]+?)\s*$")


@dataclass(frozen=True)
class RealCase:
    case: Case
    source: str
    lines: dict[str, int]
    says: tuple[tuple[str, str], ...]

    @property
    def id(self) -> str:
        return self.case.id


def parse_real(exercise: str, path: Path) -> RealCase:
    case = parse(exercise, path)
    text = case.code
    source = _SOURCE.search(text)
    if source is None:
        raise ValueError(f"{path} has no '# source:' header")
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        mark = _MARK.search(line)
        if mark and not line.lstrip().startswith("#"):
            for slug in mark.group(1).split():
                if slug in lines:
                    raise ValueError(f"{path}: '{slug}' is marked on two lines")
                lines[slug] = number
    unmarked = case.failing - set(lines)
    if unmarked:
        raise ValueError(f"{path}: no '# <- SLUG' line for {', '.join(sorted(unmarked))}")
    stray = set(lines) - case.failing
    if stray:
        raise ValueError(f"{path}: lines marked for checks it does not expect to fail: {sorted(stray)}")
    return RealCase(case, source.group(1), lines, tuple(_SAYS.findall(text)))


def real_cases() -> list[RealCase]:
    found = []
    for folder in sorted(p for p in REALWORLD.iterdir() if p.is_dir()):
        found.extend(parse_real(folder.name, path) for path in sorted(folder.glob("*.py")))
    return found
