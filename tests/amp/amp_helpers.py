"""Run a learner source in this process under the AMP scenario, as the runner would."""

from __future__ import annotations

import types
import warnings
from typing import Any

from grader.amp.findings import LoopSpec
from grader.amp.review import Review
from grader.amp.run import run_traced

PARAMS = {"seed": 3, "data_seed": 11, "batches": 4, "batch_size": 8, "device": "cuda"}


def load_source(source: str) -> types.ModuleType:
    module = types.ModuleType("submission")
    exec(compile(source, "submission.py", "exec"), module.__dict__)  # noqa: S102
    return module


def run_source(source: str, **params: Any) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecation notes are advice, not test noise
        return run_traced(load_source(source), {**PARAMS, **params})


def review_source(source: str, spec: LoopSpec | None = None, **params: Any) -> Review:
    return Review(run_source(source, **params), source, spec)
