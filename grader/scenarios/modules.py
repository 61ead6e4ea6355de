"""Scenario for lesson 2's model exercise: build the learner's nn.Module, report what it holds."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import torch
from torch import nn

from grader.scenarios import scenario


@scenario("modules.mlp")
def mlp(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """MLP(in, hidden, out): registered parameters, output shape, linearity, gradient flow."""
    sizes = [int(params["in_features"]), int(params["hidden"]), int(params["out_features"])]
    torch.manual_seed(int(params.get("seed", 0)))
    model = submission.MLP(*sizes)
    report: dict[str, Any] = {"is_module": isinstance(model, nn.Module)}
    if not report["is_module"]:
        return {**report, "type": type(model).__name__}
    report["parameters"] = {name: list(p.shape) for name, p in model.named_parameters()}
    generator = torch.Generator().manual_seed(int(params.get("data_seed", 1)))
    x = torch.randn(int(params.get("batch", 5)), sizes[0], generator=generator)
    out = model(x)
    if not isinstance(out, torch.Tensor):
        return {**report, "out_type": type(out).__name__}
    report["out_shape"] = list(out.shape)
    with torch.no_grad():
        # A stack of Linear layers with nothing between them is one affine map:
        # f(2x) == 2 f(x) - f(0) holds exactly then, and fails once a ReLU bends it.
        zero = torch.zeros_like(x)
        report["affine_gap"] = float((model(2 * x) - (2 * model(x) - model(zero))).abs().max())
    model.zero_grad(set_to_none=True)
    if out.requires_grad:  # a detached output leaves every .grad None, which is the finding
        out.pow(2).mean().backward()
    report["without_grad"] = [name for name, p in model.named_parameters() if p.grad is None]
    return report
