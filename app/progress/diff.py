"""Line diff of two submissions (difflib) with a size and time cap, cached, as rows to render."""

from __future__ import annotations

import difflib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

# (tag, i1, i2, j1, j2) groups: a few integers per hunk, whatever the size of the code.
Groups = list[list[tuple[str, int, int, int, int]]]
CACHE_SIZE = 4096


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add" | "del" | "ctx" | "hunk"
    text: str


@dataclass(frozen=True)
class Diff:
    """The rows of a diff, or too_large when it was beyond the caps (the page says so)."""

    rows: list[DiffLine] = field(default_factory=list)
    too_large: bool = False

    def __bool__(self) -> bool:
        return self.too_large or bool(self.rows)

    def __iter__(self) -> Any:
        return iter(self.rows)


class DiffTooLarge(Exception):
    """The diff would cost more than the caps allow."""


class _CappedMatcher(difflib.SequenceMatcher):  # type: ignore[type-arg]
    """difflib's matcher that gives up at a deadline.

    The clock is this thread's CPU time: a busy server does not turn small diffs "too large".
    difflib is quadratic on some inputs (many distinct repeated lines: 60 s of CPU for two
    52 KB submissions). Each find_longest_match call is small once autojunk drops lines seen
    in more than 1% of the text, so checking the clock before each bounds the whole diff.
    """

    def __init__(self, a: list[str], b: list[str], deadline: float):
        self._deadline = deadline
        super().__init__(None, a, b)

    def find_longest_match(self, alo: int = 0, ahi: int | None = None, blo: int = 0,
                           bhi: int | None = None) -> difflib.Match:
        if time.thread_time() > self._deadline:
            raise DiffTooLarge
        return super().find_longest_match(alo, ahi, blo, bhi)


def _range(start: int, stop: int) -> str:
    """A unified diff's line range, as difflib writes it."""
    length = stop - start
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


def _rows(a: list[str], b: list[str], groups: Groups) -> list[DiffLine]:
    rows = []
    for group in groups:
        first, last = group[0], group[-1]
        rows.append(DiffLine(
            "hunk", f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@"))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows.extend(DiffLine("ctx", line) for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                rows.extend(DiffLine("del", line) for line in a[i1:i2])
            if tag in ("replace", "insert"):
                rows.extend(DiffLine("add", line) for line in b[j1:j2])
    return rows


def row_count(groups: Groups) -> int:
    """How many rows _rows would make of these groups, without making them."""
    rows = 0
    for group in groups:
        rows += 1
        for tag, i1, i2, j1, j2 in group:
            rows += (i2 - i1) if tag != "insert" else 0
            rows += (j2 - j1) if tag in ("replace", "insert") else 0
    return rows


def _groups(a: list[str], b: list[str], context: int, max_lines: int,
            max_seconds: float, max_rows: int | None = None) -> Groups | None:
    """The grouped opcodes, or None when beyond the caps."""
    if len(a) > max_lines or len(b) > max_lines:
        return None
    try:
        matcher = _CappedMatcher(a, b, time.thread_time() + max_seconds)
        groups = [list(group) for group in matcher.get_grouped_opcodes(context)]
    except DiffTooLarge:
        return None
    # A diff of thousands of rows reads no better than the two codes, and rendering it on
    # every view of the history page would cost more than the page's budget.
    if max_rows is not None and row_count(groups) > max_rows:
        return None
    return groups


def diff_lines(before: str, after: str, context: int = 3, *, max_lines: int = 2000,
               max_seconds: float = 0.05) -> list[DiffLine]:
    """Unified diff rows without the file headers; empty when the code did not change.

    Raises DiffTooLarge beyond the caps.
    """
    a, b = before.splitlines(), after.splitlines()
    groups = _groups(a, b, context, max_lines, max_seconds)
    if groups is None:
        raise DiffTooLarge
    return _rows(a, b, groups)


class DiffCache:
    """Grouped opcodes per (before id, after id): submissions never change, so each pair is
    diffed once per process (gunicorn's threads share it), and a "too large" is kept too."""

    def __init__(self, size: int = CACHE_SIZE):
        self._size = size
        self._found: OrderedDict[tuple[str, str], Groups | None] = OrderedDict()
        self._lock = threading.Lock()

    def diff(self, before_id: str, before: str, after_id: str, after: str, *,
             max_lines: int, max_seconds: float, max_rows: int | None = None,
             context: int = 3) -> Diff:
        key = (before_id, after_id)
        with self._lock:
            known = key in self._found
            groups = self._found.get(key)
            if known:
                self._found.move_to_end(key)
        if known and groups is None:
            return Diff(too_large=True)  # without splitting 64 KB of code twice again
        a, b = before.splitlines(), after.splitlines()
        if not known:
            groups = _groups(a, b, context, max_lines, max_seconds, max_rows)
            with self._lock:
                self._found[key] = groups
                while len(self._found) > self._size:
                    self._found.popitem(last=False)
        if groups is None:
            return Diff(too_large=True)
        return Diff(_rows(a, b, groups))


cache = DiffCache()


def submission_diff(before: Any, after: Any) -> Diff:
    """The capped, cached diff of two stored submissions, with the app's configured caps."""
    from flask import current_app

    config = current_app.config
    return cache.diff(before.id, before.code, after.id, after.code,
                      max_lines=config["DIFF_MAX_LINES"], max_seconds=config["DIFF_MAX_SECONDS"],
                      max_rows=config["DIFF_MAX_ROWS"])
