"""Describes exceptions raised in learner code by the learner's own frames, never the harness's."""

from __future__ import annotations

import sys
import traceback
import types
from typing import Any

SUBMISSION_NAME = "submission.py"  # the filename learner code is compiled under


def learner_frames(exc: BaseException) -> list[traceback.FrameSummary]:
    return [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == SUBMISSION_NAME]


def describe_exception(exc: BaseException) -> dict[str, Any]:
    """Type, message, the learner's deepest line, and a traceback limited to the learner's frames."""
    frames = learner_frames(exc)
    lines = ["Traceback (most recent call last):"]
    for frame in frames:
        lines.append(f'  File "{frame.filename}", line {frame.lineno}, in {frame.name}')
        if frame.line:
            lines.append(f"    {frame.line.strip()}")
    lines.extend(traceback.format_exception_only(type(exc), exc))
    return {
        "kind": "exception",
        "type": type(exc).__name__,
        "message": str(exc)[:2000],
        "line": frames[-1].lineno if frames else None,
        "traceback": "\n".join(line.rstrip("\n") for line in lines)[:8000],
    }


def describe_syntax_error(exc: SyntaxError) -> dict[str, Any]:
    text = (exc.text or "").rstrip("\n")
    pointer = ""
    if text and exc.offset:
        pointer = "\n" + " " * (exc.offset - 1) + "^"
    return {
        "kind": "syntax",
        "type": type(exc).__name__,
        "message": exc.msg,
        "line": exc.lineno,
        "traceback": f"line {exc.lineno}: {text}{pointer}\n{type(exc).__name__}: {exc.msg}",
    }


def running_line(frame: types.FrameType | None) -> int | None:
    """The line the learner's code is on right now: the deepest submission frame of this stack,
    else of any other thread (a learner's worker thread while the main one waits on it)."""
    stacks = [frame, *(f for f in sys._current_frames().values() if f is not frame)]
    for top in stacks:
        current = top
        while current is not None:
            if current.f_code.co_filename == SUBMISSION_NAME:
                return current.f_lineno
            current = current.f_back
    return None
