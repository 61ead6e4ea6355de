import contextlib
import statistics
import time

import torch
import torch.nn.functional as F

# Hidden-layer widths to compare, and the batch size. On a CPU without bf16 instructions
# (AVX2 only) autocast is slower at both widths; on a GPU a large batch makes the activations (which autocast
# halves) outweigh the float32 weights (which it keeps), so peak memory shows a real difference.
WIDTHS = [64, 1024]
BATCH_SIZE = 4096 if torch.cuda.is_available() else 128


def train_step(model, optimizer, inputs, targets, amp_dtype):
    """One training step; the forward pass and the loss under autocast when amp_dtype is given."""
    optimizer.zero_grad(set_to_none=True)
    if amp_dtype is None:
        region = contextlib.nullcontext()
    else:
        region = torch.autocast(device_type=inputs.device.type, dtype=amp_dtype)
    with region:
        loss = F.cross_entropy(model(inputs), targets)
    loss.backward()
    optimizer.step()


def time_steps(model, optimizer, inputs, targets, amp_dtype=None, steps=5, warmup=2):
    """Median seconds per training step, and the peak CUDA memory in MiB (None on a CPU)."""
    on_cuda = inputs.device.type == "cuda"
    for _ in range(warmup):  # allocation, kernel choice and lazy imports: not timed
        train_step(model, optimizer, inputs, targets, amp_dtype)
    if on_cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(steps):
        if on_cuda:
            torch.cuda.synchronize()  # start the clock when earlier GPU work is done
        start = time.perf_counter()
        train_step(model, optimizer, inputs, targets, amp_dtype)
        if on_cuda:
            torch.cuda.synchronize()  # stop it when this step's GPU work is done
        times.append(time.perf_counter() - start)
    peak_mb = torch.cuda.max_memory_allocated() / 2**20 if on_cuda else None
    return {"seconds": statistics.median(times), "peak_mb": peak_mb}
