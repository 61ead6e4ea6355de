import torch
from torch import nn


class MLP(nn.Module):
    """Linear -> ReLU -> Linear."""

    def __init__(self, in_features: int, hidden: int, out_features: int):
        super().__init__()
        # TODO: a plain list does not register the layers' parameters.
        self.layers = [nn.Linear(in_features, hidden), nn.Linear(hidden, out_features)]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # TODO: put a ReLU between the two layers.
        for layer in self.layers:
            x = layer(x)
        return x
