"""Scenarios for lesson 4 (bigger models): gradient accumulation and activation checkpointing.

The builders are deterministic from params; the harness calls the `*_reference` functions itself,
so a submission is always compared with results computed outside the learner's process.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import torch
from torch import nn

from grader.scenarios import scenario
from grader.scenarios.probe import LoopProbe, float_state

FEATURES, HIDDEN = 8, 16


# -- bigger-grad-accumulation ---------------------------------------------------------------
def build_regressor(params: dict[str, Any]) -> tuple[nn.Module, torch.optim.Optimizer]:
    torch.manual_seed(int(params.get("seed", 0)))
    model = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, 1))
    # Momentum makes an extra or a missing step show in the weights, not just in the counts.
    optimizer = torch.optim.SGD(model.parameters(), lr=float(params.get("lr", 0.05)), momentum=0.9)
    return model, optimizer


def micro_batches(params: dict[str, Any]) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """windows × accum_steps micro-batches of micro_size samples each."""
    generator = torch.Generator().manual_seed(int(params.get("data_seed", 1)))
    count = int(params["windows"]) * int(params["accum_steps"])
    size = int(params.get("micro_size", 4))
    return [(torch.randn(size, FEATURES, generator=generator),
             torch.randn(size, 1, generator=generator)) for _ in range(count)]


@scenario("bigger.accumulate")
def accumulate(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """Run the learner's train_accumulated over fixed micro-batches; report weights and events."""
    model, optimizer = build_regressor(params)
    probe = LoopProbe(model, optimizer)
    submission.train_accumulated(model, micro_batches(params), optimizer, nn.MSELoss(),
                                 int(params["accum_steps"]))
    probe.remove()
    return {"state": float_state(model), **probe.report()}


def big_batch_reference(params: dict[str, Any], loss_scale: float = 1.0) -> dict[str, torch.Tensor]:
    """One step per window on the whole window as one batch: what accumulation must reproduce.

    loss_scale = accum_steps gives what accumulating without dividing the loss produces.
    """
    model, optimizer = build_regressor(params)
    batches, k = micro_batches(params), int(params["accum_steps"])
    for start in range(0, len(batches), k):
        inputs = torch.cat([x for x, _ in batches[start:start + k]])
        targets = torch.cat([y for _, y in batches[start:start + k]])
        optimizer.zero_grad()
        (nn.functional.mse_loss(model(inputs), targets) * loss_scale).backward()
        optimizer.step()
    return float_state(model)


# -- bigger-checkpointing -------------------------------------------------------------------
class CountingBlock(nn.Module):
    """A residual block that counts its forward runs: a checkpointed block runs twice."""

    def __init__(self, width: int):
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return x + torch.tanh(self.linear(x))


def build_blocks(params: dict[str, Any]) -> tuple[nn.ModuleList, torch.Tensor]:
    torch.manual_seed(int(params.get("seed", 0)))
    blocks = nn.ModuleList(CountingBlock(HIDDEN) for _ in range(int(params.get("blocks", 4))))
    generator = torch.Generator().manual_seed(int(params.get("data_seed", 1)))
    # The input does not require grad, like a batch of data: the case the reentrant variant fumbles.
    return blocks, torch.randn(int(params.get("batch", 6)), HIDDEN, generator=generator)


def _grads(blocks: nn.Module) -> dict[str, Any]:
    return {name: (None if p.grad is None else p.grad.detach().clone())
            for name, p in blocks.named_parameters()}


@scenario("bigger.checkpointing")
def checkpointing(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """Forward through the learner's function, then backward here; report outputs, grads, counts."""
    blocks, inputs = build_blocks(params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = submission.checkpointed_forward(blocks, inputs)
        report: dict[str, Any] = {"calls_forward": [b.calls for b in blocks]}
        if not isinstance(out, torch.Tensor):
            return {**report, "out": None, "type": type(out).__name__}
        report["out"] = out.detach().clone()
        try:
            out.pow(2).mean().backward()
            report["backward_error"] = None
        except RuntimeError as exc:
            report["backward_error"] = str(exc)[:300]
    report["calls_total"] = [b.calls for b in blocks]
    report["grads"] = _grads(blocks)
    report["warnings"] = sorted({str(w.message)[:200] for w in caught})
    return report


def plain_reference(params: dict[str, Any]) -> dict[str, Any]:
    """The same blocks run without checkpointing: outputs and gradients must match these."""
    blocks, hidden = build_blocks(params)
    for block in blocks:
        hidden = block(hidden)
    hidden.pow(2).mean().backward()
    return {"out": hidden.detach(), "grads": _grads(blocks)}
