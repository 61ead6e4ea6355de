"""Time FP32 against bfloat16 autocast training steps on this CPU, with the CPU's flags recorded.

    .venv/bin/python bench/amp_cpu_speed.py [--widths 64 1024] [--batch 128] [--threads 1]
                                            [--steps 10] [--warmup 3] [--repeats 5] [--json]

The model and data are the amp-measure-speed grader's (three linear layers of the given width,
SGD, cross-entropy, seed 0). Each repeat times FP32 and bf16 back to back on fresh models and
keeps the median step of each; the report gives the medians over repeats and the spread of the
FP32/bf16 ratio, then times one bare matrix product in each dtype and one weight cast, to show
where bf16's time goes. bf16 speed on a CPU depends on its instructions (avx512_bf16, amx_bf16), so
the header prints the CPU model, those flags, torch's CPU capability, the thread count and the
load average before and after: a figure without them cannot be compared with another machine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

CLASSES = 10
# Instruction-set flags that decide how bfloat16 matrix products run on x86 CPUs.
FLAGS = ("avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx512_bf16", "avx512_fp16",
         "amx_bf16", "amx_tile")


def cpu_description() -> dict[str, object]:
    """The CPU's model name, which of FLAGS it has, torch's view of it, and the thread count."""
    model, flags = platform.processor() or "unknown", set()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
    return {"model": model, "cores": os.cpu_count(), "flags": [f for f in FLAGS if f in flags],
            "missing_flags": [f for f in FLAGS if f not in flags],
            "torch": torch.__version__, "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "threads": torch.get_num_threads()}


def build_model(width: int) -> nn.Module:
    """The grader's model for amp-measure-speed: three linear layers of the chosen width."""
    return nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                         nn.Linear(width, CLASSES))


def median_step(width: int, batch: int, amp: bool, steps: int, warmup: int) -> float:
    """Median seconds of one SGD step (forward and loss under bf16 autocast when amp)."""
    torch.manual_seed(0)
    model = build_model(width)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    inputs, targets = torch.randn(batch, width), torch.randint(0, CLASSES, (batch,))
    region = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if amp else contextlib.nullcontext
    times = []
    for i in range(warmup + steps):
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        with region():
            loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        if i >= warmup:  # warm-up steps pay for allocation and kernel choice: not timed
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def median_ms(function, runs: int = 7) -> float:
    """Median milliseconds of function() over runs calls, after one untimed call."""
    function()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def parts(width: int, batch: int) -> dict[str, float]:
    """Where a bf16 step's time goes: one matrix product in each dtype, and one weight cast."""
    a, w = torch.randn(batch, width), torch.randn(width, width)
    a16, w16 = a.bfloat16(), w.bfloat16()
    return {"matmul_fp32_ms": median_ms(lambda: a @ w), "matmul_bf16_ms": median_ms(lambda: a16 @ w16),
            "cast_weight_ms": median_ms(lambda: w.bfloat16())}


def measure(width: int, batch: int, steps: int, warmup: int, repeats: int) -> dict[str, object]:
    """FP32 and bf16 medians over repeats, and the min/median/max of the FP32/bf16 ratio."""
    fp32, bf16 = [], []
    for _ in range(repeats):
        fp32.append(median_step(width, batch, False, steps, warmup))
        bf16.append(median_step(width, batch, True, steps, warmup))
    ratios = sorted(f / b for f, b in zip(fp32, bf16, strict=True))
    return {"width": width, "batch": batch, "fp32_ms": 1000 * statistics.median(fp32),
            "bf16_ms": 1000 * statistics.median(bf16),
            "speedup_min": ratios[0], "speedup_median": statistics.median(ratios),
            "speedup_max": ratios[-1], **parts(width, batch)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", type=int, nargs="+", default=[64, 1024])
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    report = {"cpu": cpu_description(), "load_before": os.getloadavg(),
              "steps": args.steps, "warmup": args.warmup, "repeats": args.repeats}
    report["results"] = [measure(w, args.batch, args.steps, args.warmup, args.repeats)
                         for w in args.widths]
    report["load_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(report, indent=1))
        return
    cpu = report["cpu"]
    print(f"CPU: {cpu['model']}, {cpu['cores']} cores; torch {cpu['torch']}, "
          f"capability {cpu['cpu_capability']}, {cpu['threads']} threads")
    print(f"flags: {' '.join(cpu['flags']) or '-'}; missing: {' '.join(cpu['missing_flags']) or '-'}")
    print("load average before: " + " ".join(f"{x:.2f}" for x in report["load_before"])
          + ", after: " + " ".join(f"{x:.2f}" for x in report["load_after"]))
    for r in report["results"]:
        print(f"width {r['width']:5} batch {r['batch']}: FP32 {r['fp32_ms']:8.2f} ms, "
              f"bf16 {r['bf16_ms']:8.2f} ms per step; FP32/bf16 {r['speedup_median']:.2f} "
              f"(min {r['speedup_min']:.2f}, max {r['speedup_max']:.2f}; >1 means bf16 is faster)")
        print(f"  one ({r['batch']} x {r['width']}) @ ({r['width']} x {r['width']}) product: FP32 "
              f"{r['matmul_fp32_ms']:.3f} ms, bf16 {r['matmul_bf16_ms']:.3f} ms; "
              f"casting the weight to bf16 {r['cast_weight_ms']:.3f} ms")


if __name__ == "__main__":
    main()
