"""A small, deterministic training setup (model, data, optimizer, loss, scaler) for AMP exercises.

The same builder runs in the learner's process (through the AMP scenarios) and in the harness
for the reference solution, so both train from identical weights on identical data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

IN_FEATURES, HIDDEN, CLASSES = 16, 32, 4  # multiples of 8, as AMP prefers


class RecordingLoss(nn.CrossEntropyLoss):
    """Cross-entropy that remembers the value of every loss it computed."""

    def __init__(self) -> None:
        super().__init__()
        self.values: list[float] = []

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        loss = super().forward(logits, target)
        self.values.append(float(loss.detach().float()))
        return loss


class CustomLoss(RecordingLoss):
    """A hand-written loss (L1 distance of the logits to the one-hot targets) that autocast leaves alone.

    Unlike cross-entropy, none of its operations is on autocast's float32 list, so called on
    16-bit outputs it stays in 16 bits; the AMP recipe is to pass it `outputs.float()`.
    """

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        onehot = nn.functional.one_hot(target, logits.shape[-1]).to(logits.dtype)
        loss = (logits - onehot).abs().mean()
        self.values.append(float(loss.detach().float()))
        return loss


@dataclass
class TrainingSetup:
    model: nn.Module
    loader: DataLoader[Any]
    optimizer: torch.optim.Optimizer
    criterion: RecordingLoss
    scaler: torch.amp.GradScaler
    device: torch.device


def pick_device(request: str = "auto") -> torch.device:
    if request == "cuda" or (request == "auto" and torch.cuda.is_available()):
        return torch.device("cuda")
    return torch.device("cpu")


def build_setup(params: dict[str, Any]) -> TrainingSetup:
    """Everything train_one_epoch receives, made from seeds alone."""
    device = pick_device(params.get("device", "auto"))
    torch.manual_seed(int(params.get("seed", 0)))
    model = nn.Sequential(nn.Linear(IN_FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES))
    model.to(device)
    generator = torch.Generator().manual_seed(int(params.get("data_seed", 1)))
    n = int(params.get("batches", 6)) * int(params.get("batch_size", 8))
    inputs = torch.randn(n, IN_FEATURES, generator=generator)
    targets = torch.randint(0, CLASSES, (n,), generator=generator)
    loader = DataLoader(TensorDataset(inputs, targets), batch_size=int(params.get("batch_size", 8)))
    optimizer = torch.optim.SGD(model.parameters(), lr=float(params.get("lr", 0.1)), momentum=0.9)
    scaler = torch.amp.GradScaler(device.type, init_scale=float(params.get("init_scale", 2.0**16)))
    criterion = CustomLoss() if params.get("loss") == "custom" else RecordingLoss()
    return TrainingSetup(model, loader, optimizer, criterion, scaler, device)
