"""Fenced Python blocks of a lesson, tagged by the words after `python` in their info string."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
_FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Block:
    """One ```python block: its tags ("fragment", "standalone") and its code."""

    index: int
    tags: frozenset[str]
    code: str

    def expected_output(self) -> list[str]:
        """The block's trailing `# ` comment lines: what it prints, as shown in the lesson."""
        lines = self.code.rstrip("\n").split("\n")
        shown: list[str] = []
        while lines and lines[-1].startswith("# "):
            shown.insert(0, lines.pop()[2:])
        return shown


def blocks(lesson: str, lang: str = "en") -> list[Block]:
    text = (LESSONS / lesson / f"{lang}.md").read_text(encoding="utf-8")
    return [Block(i, frozenset(m.group(1).split()), m.group(2))
            for i, m in enumerate(_FENCE.finditer(text))]


def lesson_names() -> list[str]:
    return sorted(p.name for p in LESSONS.iterdir() if (p / "en.md").is_file())
