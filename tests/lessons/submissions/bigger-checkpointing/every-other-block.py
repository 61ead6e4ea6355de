from torch.utils.checkpoint import checkpoint
def checkpointed_forward(blocks, x):
    h = x
    for i, block in enumerate(blocks):
        h = checkpoint(block, h, use_reentrant=False) if i % 2 else block(h)
    return h
