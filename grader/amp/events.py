"""Trace events: what the tracer records, and how it finds the learner's line for each one."""

from __future__ import annotations

import os
import sys
from typing import Any

SUBMISSION_FILENAME = "submission.py"
# A generator function's code (inspect.CO_GENERATOR | CO_ASYNC_GENERATOR), without importing inspect.
_GENERATOR_FLAGS = 0x20 | 0x200
MAX_EVENTS = 20_000  # a runaway loop must not grow the trace without bound

# Every kind the tracer emits; the harness rejects anything else (the trace comes from an
# untrusted process, so it is parsed, never trusted blindly).
KINDS = frozenset({
    "batch", "autocast-enter", "autocast-exit", "forward", "loss", "backward",
    "scaler-init", "scale", "unscale", "scaler-step", "scaler-update",
    "optimizer-step", "zero-grad", "clip", "model-cast",
})


def is_submission_file(filename: str, target: str = SUBMISSION_FILENAME) -> bool:
    return os.path.basename(filename) == target


def learner_line(target: str = SUBMISSION_FILENAME, skip: int = 1, *, past_generators: bool = False) -> int | None:
    """The line of the innermost frame that runs the learner's file, or None.

    The innermost one is the learner's statement that led to the event (a helper's body
    rather than the helper's caller), which is the line worth highlighting. With
    `past_generators`, a generator of the learner's (`def cycle(loader): ... yield batch`) is
    passed over for the frame that consumes it: a batch belongs to the training loop that
    asked for it, not to the helper's `for` that handed it on.
    """
    frame = sys._getframe(skip)
    innermost = None
    while frame is not None:
        if is_submission_file(frame.f_code.co_filename, target):
            if not (past_generators and frame.f_code.co_flags & _GENERATOR_FLAGS):
                return frame.f_lineno
            innermost = innermost or frame.f_lineno
        frame = frame.f_back
    return innermost


def dtype_name(dtype: Any) -> str | None:
    """'float16' for torch.float16; None passes through (autocast's "use the default")."""
    if dtype is None:
        return None
    return str(dtype).removeprefix("torch.")


class EventLog:
    """An append-only list of JSON-ready event dicts with a size cap."""

    def __init__(self, filename: str = SUBMISSION_FILENAME, cap: int = MAX_EVENTS) -> None:
        self.filename = filename
        self.cap = cap
        self.events: list[dict[str, Any]] = []
        self.truncated = False

    def emit(self, kind: str, **fields: Any) -> dict[str, Any] | None:
        """Record one event at the learner's current line; returns it so callers can amend it."""
        if kind not in KINDS:
            raise ValueError(f"unknown event kind {kind!r}")
        if len(self.events) >= self.cap:
            self.truncated = True
            return None
        # A batch is placed in the loop that consumes it, through the learner's generator helpers.
        line = learner_line(self.filename, 2, past_generators=kind == "batch")
        event = {"kind": kind, "seq": len(self.events), "line": line}
        event.update(fields)
        self.events.append(event)
        return event
