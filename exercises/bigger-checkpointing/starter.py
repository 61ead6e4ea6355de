import torch
from torch.utils.checkpoint import checkpoint


def checkpointed_forward(blocks, x: torch.Tensor) -> torch.Tensor:
    """Run x through every block in order, each one under activation checkpointing."""
    h = x
    for block in blocks:
        # TODO: wrap the block in checkpoint(..., use_reentrant=False).
        h = block(h)
    return h
