"""Line diff of two submissions (difflib), as rows a template renders escaped."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add" | "del" | "ctx" | "hunk"
    text: str


def diff_lines(before: str, after: str, context: int = 3) -> list[DiffLine]:
    """Unified diff rows without the file headers; empty when the code did not change."""
    rows = []
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), lineterm="", n=context)
    for line in lines:
        if line.startswith(("---", "+++")) and not rows:
            continue  # the two file-name headers come first and name nothing here
        if line.startswith("@@"):
            rows.append(DiffLine("hunk", line))
        elif line.startswith("+"):
            rows.append(DiffLine("add", line[1:]))
        elif line.startswith("-"):
            rows.append(DiffLine("del", line[1:]))
        else:
            rows.append(DiffLine("ctx", line[1:]))
    return rows
