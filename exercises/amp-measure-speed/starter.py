import statistics
import time

import torch
import torch.nn.functional as F

# Layer widths to compare (1 to 4 of them, each from 8 to 1024 on a CPU grader), and the
# batch size (at most 256 on a CPU grader). Choose sizes that show you something.
WIDTHS = [64]
BATCH_SIZE = 64


def train_step(model, optimizer, inputs, targets, amp_dtype):
    """One training step; the forward pass and the loss under autocast when amp_dtype is given."""
    optimizer.zero_grad(set_to_none=True)
    # TODO: when amp_dtype is not None, run these two lines under
    # torch.autocast(device_type=inputs.device.type, dtype=amp_dtype).
    outputs = model(inputs)
    loss = F.cross_entropy(outputs, targets)
    loss.backward()
    optimizer.step()


def time_steps(model, optimizer, inputs, targets, amp_dtype=None, steps=5, warmup=2):
    """Median seconds per training step, and the peak CUDA memory in MiB (None on a CPU)."""
    # TODO: run `warmup` steps without timing them, then time `steps` steps one by one
    # with time.perf_counter(). On CUDA, call torch.cuda.synchronize() before starting and
    # before stopping the clock, and measure memory with torch.cuda.reset_peak_memory_stats()
    # and torch.cuda.max_memory_allocated().
    start = time.perf_counter()
    train_step(model, optimizer, inputs, targets, amp_dtype)
    seconds = time.perf_counter() - start
    return {"seconds": statistics.median([seconds]), "peak_mb": None}
