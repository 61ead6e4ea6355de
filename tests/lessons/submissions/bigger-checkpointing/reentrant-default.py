from torch.utils.checkpoint import checkpoint
def checkpointed_forward(blocks, x):
    h = x
    for block in blocks:
        h = checkpoint(block, h)
    return h
