"""Scenarios for lesson 1 (tensors): device-agnostic code, checked on machines without a GPU.

Two stand-ins make "works on any device" testable on a CPU grader: torch.cuda.is_available is
answered both ways while pick_device runs, and the "meta" device (shapes and dtypes, no data)
plays the part of a second device when things are moved.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any
from unittest import mock

import torch
from torch import nn

from grader.scenarios import scenario

META = torch.device("meta")


def _device_name(value: Any) -> str | None:
    return str(value) if isinstance(value, (torch.device, str)) else None


@scenario("tensors.pick_device")
def pick_device(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """What the learner's pick_device() returns with and without a (pretended) GPU."""
    report = {}
    for available in (False, True):
        # Only the question is answered; nothing is ever allocated on the pretended GPU.
        with mock.patch("torch.cuda.is_available", return_value=available):
            value = submission.pick_device()
        report["with_gpu" if available else "without_gpu"] = {
            "type": type(value).__name__, "device": _device_name(value)}
    return report


def _describe(tensor: Any) -> dict[str, Any]:
    if not isinstance(tensor, torch.Tensor):
        return {"type": type(tensor).__name__}
    return {"type": "Tensor", "device": str(tensor.device), "shape": list(tensor.shape),
            "dtype": str(tensor.dtype)}


@scenario("tensors.to_device")
def to_device(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """Move a model and a batch with the learner's to_device(); report where everything ended."""
    device = META if params.get("device") == "meta" else torch.device("cpu")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    inputs, targets = torch.randn(5, 4), torch.randint(0, 2, (5,))
    returned = submission.to_device(model, inputs, targets, device)
    if not isinstance(returned, (tuple, list)) or len(returned) != 3:
        return {"triple": False, "type": type(returned).__name__}
    got_model, got_inputs, got_targets = returned
    return {
        "triple": True,
        "model_is_module": isinstance(got_model, nn.Module),
        "model_devices": sorted({str(p.device) for p in model.parameters()}),
        "inputs": _describe(got_inputs),
        "targets": _describe(got_targets),
        "original_inputs_device": str(inputs.device),
    }
