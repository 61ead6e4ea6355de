"""Peak live tensor memory of one training step, float32 against autocast, on this machine's CPU.

    PYTHONPATH=$PWD .venv/bin/python bench/amp_memory.py

amp-measure-speed's model (grader.scenarios.measure.build_model) at four sizes. A CPU has no
counter like torch.cuda.max_memory_allocated, so the peak comes from the profiler's memory
timeline (tensors alive before the step, created and freed during it): what a GPU's peak
would count, less the allocator's rounding and the CUDA context. Shows when autocast's memory
saving is there to see: activations shrink to half precision, weights stay in float32 (and
gain half-precision copies for the step), so a model that is mostly weights saves nothing.
"""

from __future__ import annotations

import os
import warnings

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

from grader.scenarios.measure import build_model

SIZES = ((64, 128), (1024, 128), (256, 4096), (1024, 4096))  # (width, batch)


def peak_mib(width: int, batch: int, autocast: bool) -> float:
    torch.manual_seed(0)
    model = build_model(width)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    inputs, targets = torch.randn(batch, width), torch.randint(0, 10, (batch,))

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()

    step()  # the second step is measured: gradients exist, as in every timed step
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True,
                 with_stack=True) as profiler:
        step()
    live = top = 0
    for _, action, _, size in profiler._memory_profile().timeline:  # noqa: SLF001 -- the timeline export uses it
        if action.name in ("PREEXISTING", "CREATE"):
            live += size
        elif action.name == "DESTROY":
            live -= size
        top = max(top, live)
    return top / 2**20


def main() -> None:
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, {torch.backends.cpu.get_cpu_capability()}, "
          f"load {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")
    for width, batch in SIZES:
        full, half = peak_mib(width, batch, False), peak_mib(width, batch, True)
        print(f"width {width:5} batch {batch:5}: float32 {full:6.1f} MiB, bfloat16 autocast {half:6.1f} MiB "
              f"({100 * (half - full) / full:+.0f} %)", flush=True)


if __name__ == "__main__":
    main()
