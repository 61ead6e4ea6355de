"""AMP scenarios: the learner's training function run under the tracer (grader.amp.run), its trace as data."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from grader.amp.run import run_traced
from grader.scenarios import scenario


@scenario("amp.run")
def run(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """The folder's declared scenario (exercise.toml's [amp] table, as Scenario.params() gives it)."""
    return run_traced(submission, params)


@scenario("amp.train_one_epoch")
def train_one_epoch(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """The learner's train_one_epoch(model, loader, optimizer, criterion, scaler, device)."""
    return run_traced(submission, params)


@scenario("amp.train_bf16")
def train_bf16(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """A BF16 loop: train_one_epoch(model, loader, optimizer, criterion, device), no scaler."""
    return run_traced(submission, {**params, "scaler": False})
