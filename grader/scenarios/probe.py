"""Watches a training loop from outside (hooks only, no patching): backward, step and train mode.

What it reports explains a mistake (gradients not cleared, step before backward, eval mode left on);
the verdict itself always comes from comparing weights with a reference computed in the harness.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn


def float_state(model: nn.Module) -> dict[str, torch.Tensor]:
    """The model's state dict as float32 CPU copies, safe to send and to compare."""
    return {k: v.detach().float().cpu().clone() for k, v in model.state_dict().items()}


def _is_clear(grad: torch.Tensor | None) -> bool:
    return grad is None or not bool(grad.detach().ne(0).any())


class LoopProbe:
    """Records the loop's events in order: backward (on a clean or an old .grad) and step."""

    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer | None = None):
        params = [p for p in model.parameters() if p.requires_grad]
        self._params = params
        self.events: list[str] = []
        self.train_flags: list[bool] = []
        self.grad_flags: list[bool] = []  # was autograd recording during each forward pass?
        # A hook on a leaf runs before the new gradient is added into .grad, so it sees whether
        # the old one was cleared -- whichever way the learner cleared it (optimizer, model, None).
        watched = params[-1]
        self._handles: list[Any] = [
            watched.register_hook(lambda grad: self._on_backward(watched)),
            model.register_forward_pre_hook(lambda module, args: self._on_forward(module)),
        ]
        if optimizer is not None:
            self._handles.append(
                optimizer.register_step_pre_hook(lambda opt, args, kwargs: self._on_step()))

    def _on_backward(self, watched: torch.Tensor) -> None:
        self.events.append("backward" if _is_clear(watched.grad) else "backward-on-old-grad")

    def _on_step(self) -> None:
        empty = all(_is_clear(p.grad) for p in self._params)
        self.events.append("step-without-grad" if empty else "step")

    def _on_forward(self, module: nn.Module) -> None:
        self.train_flags.append(bool(module.training))
        self.grad_flags.append(torch.is_grad_enabled())

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()

    def report(self) -> dict[str, Any]:
        return {"events": list(self.events), "train_flags": list(self.train_flags),
                "grad_flags": list(self.grad_flags)}


def count(events: list[str], name: str) -> int:
    return sum(event == name for event in events)


def windows(events: list[str]) -> list[list[str]]:
    """The events split after each step: what happened between one optimizer step and the next."""
    groups: list[list[str]] = [[]]
    for event in events:
        groups[-1].append(event)
        if event.startswith("step"):
            groups.append([])
    return [group for group in groups if group]
