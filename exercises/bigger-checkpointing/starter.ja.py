import torch
from torch.utils.checkpoint import checkpoint


def checkpointed_forward(blocks, x: torch.Tensor) -> torch.Tensor:
    """x をすべてのブロックに順に通す。各ブロックは活性化チェックポイントの下で実行する。"""
    h = x
    for block in blocks:
        # TODO: ブロックを checkpoint(..., use_reentrant=False) で包む。
        h = block(h)
    return h
