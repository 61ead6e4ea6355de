"""Everything an exercise's tests import, in one place (as check50 exposes `check50` alone).

    from grader.author import Feedback, check, call_line
    from grader.author import amp          # AMP exercises: one line per check

The names here are the supported surface for exercise authors (docs/exercises.md); the
modules behind them may move.
"""

from __future__ import annotations

from grader import figures, measurement
from grader.amp import kit as amp
from grader.learner import LearnerError
from grader.scenarios.bigger import big_batch_reference, plain_reference
from grader.scenarios.loop import (
    evaluation_reference,
    make_series,
    optimizer_state,
    resume_and_step,
    run_train_epoch,
    trained_pair,
)
from grader.scenarios.probe import count, float_state, windows
from grader.source_lines import call_line, def_line, loop_line, return_line
from grader.testing import CannotVerifyHere, Feedback, NotChecked, Text, check, localize

__all__ = [
    "CannotVerifyHere", "Feedback", "LearnerError", "NotChecked", "Text", "amp", "big_batch_reference",
    "call_line", "check", "count", "def_line", "figures", "evaluation_reference", "float_state", "localize",
    "loop_line",
    "make_series", "measurement", "optimizer_state", "plain_reference", "resume_and_step", "return_line",
    "run_train_epoch", "trained_pair", "windows",
]
