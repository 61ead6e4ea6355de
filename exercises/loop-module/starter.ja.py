import torch
from torch import nn


class MLP(nn.Module):
    """Linear -> ReLU -> Linear。"""

    def __init__(self, in_features: int, hidden: int, out_features: int):
        super().__init__()
        # TODO: ただのリストでは層のパラメータが登録されない。
        self.layers = [nn.Linear(in_features, hidden), nn.Linear(hidden, out_features)]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # TODO: 2 つの層の間に ReLU を入れる。
        for layer in self.layers:
            x = layer(x)
        return x
