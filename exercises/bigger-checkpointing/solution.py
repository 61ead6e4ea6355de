import torch
from torch.utils.checkpoint import checkpoint


def checkpointed_forward(blocks, x: torch.Tensor) -> torch.Tensor:
    """Run x through every block in order, each one under activation checkpointing."""
    h = x
    for block in blocks:
        h = checkpoint(block, h, use_reentrant=False)
    return h
