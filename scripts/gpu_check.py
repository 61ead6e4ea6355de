"""The GPU check: what a CPU grader cannot verify, run once on a machine with a CUDA GPU.

    scripts/gpu-check.sh                 # on the GPU machine (see docs/grading.md, "GPU check")
    python3 scripts/gpu_check.py --allow-cpu --limit 2   # its plumbing, on a CPU (no CUDA calls)

1. The AMP corpus (tests/amp/corpus, and any other corpus folder given) graded on CUDA through
   the local sandbox: each verdict against its header; the AMP solutions' GradScaler skips
   (figure marks "skipped") counted, since float16 with a scaler must really skip a step.
2. amp-measure-speed on CUDA: the solution must pass with cuda-synchronize verified (not
   "cannot verify here"); two wrong variants (the stop synchronize removed; one synchronize
   after the loop only) and every mutant exercise.toml declares cuda_only must fail it.
3. Speed-ups and peak memory of float16 and bfloat16 autocast against float32 for two sizes
   (a weight-heavy model and an activation-heavy batch), timed here with CUDA synchronisation.

Prints one line per item and a summary; exits 0 when every expectation holds, 1 when one does
not, 2 when there is no CUDA GPU (unless --allow-cpu, which checks the plumbing only).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "amp")]

MEASURE = REPO / "exercises" / "amp-measure-speed"
STOP_SYNC = ("        if on_cuda:\n"
             "            torch.cuda.synchronize()  # stop it when this step's GPU work is done\n")
START_SYNC = ("        if on_cuda:\n"
              "            torch.cuda.synchronize()  # start the clock when earlier GPU work is done\n")
SIZES = ((1024, 128), (256, 4096))  # (width, batch): weights dominate, then activations do


def fail_without_gpu(allow_cpu: bool) -> str:
    """'cuda', or 'cpu' with --allow-cpu; otherwise a clear message and exit status 2."""
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if allow_cpu:
        print("gpu-check: NO GPU: --allow-cpu checks the plumbing only; nothing here says anything about CUDA")
        return "cpu"
    print("gpu-check: FAILED: no CUDA GPU here (torch.cuda.is_available() is False, torch "
          f"{torch.__version__}, CUDA build {torch.version.cuda}); run this on a machine lent a GPU",
          file=sys.stderr)
    raise SystemExit(2)


def describe_machine(device: str) -> None:
    import torch

    from grader.measurement import cpu_description

    cpu = cpu_description()
    name = torch.cuda.get_device_name() if device == "cuda" else "no GPU"
    bf16 = torch.cuda.is_bf16_supported(including_emulation=False) if device == "cuda" else cpu["cpu_bf16_native"]
    print(f"machine: {name}; bf16 native {bf16}; CPU {cpu['cpu_model']} ({cpu['cpu_capability']}, "
          f"{' '.join(cpu['cpu_flags'])}); torch {torch.__version__} CUDA {torch.version.cuda}; "
          f"{os.cpu_count()} cores; GRADER_MEMORY_RLIMIT={os.environ.get('GRADER_MEMORY_RLIMIT', '')}")


def grade(exercise_dir: Path, code: str) -> dict:
    from grader.api import grade_code
    from grader.loader import load_exercise

    return grade_code(load_exercise(exercise_dir), code, sandbox="local")


def corpus(folders: list[Path], limit: int | None, jobs: int) -> list[str]:
    """Grade every corpus case; the problems (verdict mismatches) as lines."""
    from corpus_cases import EXERCISES, failing_checks, parse

    found = []
    for root in folders:
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            found.extend(parse(folder.name, path) for path in sorted(folder.glob("*.py")))
    found = found[:limit] if limit else found
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        docs = list(pool.map(lambda case: grade(EXERCISES / case.exercise, case.code), found))
    problems, skips = [], {}
    for case, doc in zip(found, docs, strict=True):
        failing = failing_checks(doc)
        ok = doc["status"] == case.status and (case.status == "pass" or failing == case.failing)
        if not ok:
            problems.append(f"corpus {case.id}: expected {case.status} {' '.join(sorted(case.failing))}, got "
                            f"{doc['status']} {doc.get('error_kind') or ''} {' '.join(sorted(failing))} "
                            f"{doc.get('message', '')[:200]}")
        if case.status == "pass":
            marks = [m for f in doc.get("figures", []) for m in f.get("marks", []) if "skip" in m["label"]]
            skips[case.exercise] = max(skips.get(case.exercise, 0), len(marks))
    print(f"corpus: {len(found)} cases graded in {time.monotonic() - started:.0f} s, "
          f"{len(found) - len(problems)} as expected, {len(problems)} not")
    print("scaler skips shown (most in one passing case, per exercise): "
          + (", ".join(f"{k} {v}" for k, v in sorted(skips.items())) or "none graded"))
    return problems


def measure_exercise(device: str) -> list[str]:
    """The solution passes with the synchronisation verified; the wrong variants fail it."""
    import tomllib

    from grader.mutants import mutants

    solution = (MEASURE / "solution.py").read_text(encoding="utf-8")
    config = tomllib.loads((MEASURE / "exercise.toml").read_text(encoding="utf-8"))
    cuda_only = {(m["line"], m["change"]) for m in config.get("equivalent_mutants", []) if m.get("cuda_only")}
    assert STOP_SYNC in solution and START_SYNC in solution, "the solution's synchronize lines moved"
    variants = {"solution": (solution, "pass"),
                "stop synchronize removed": (solution.replace(STOP_SYNC, ""), "fail"),
                "one synchronize after the loop": (solution.replace(STOP_SYNC, "").replace(START_SYNC, "").replace(
                    "    peak_mb = ", "    if on_cuda:\n        torch.cuda.synchronize()\n    peak_mb = "), "fail")}
    for mutant in mutants(solution):
        if (mutant.line, mutant.change) in cuda_only:
            variants[f"mutant line {mutant.line}: {mutant.change}"] = (mutant.code, "fail")
    problems = []
    for name, (code, wanted) in variants.items():
        doc = grade(MEASURE, code)
        checks = {t["check"]: t for t in doc["tests"]}
        sync = checks.get("cuda-synchronize", {})
        table = doc.get("measurement") or {}
        rows = "; ".join(f"{r['width']}/{r['precision']} {r['min_ms']:.3g}/{r['median_ms']:.3g}/{r['max_ms']:.3g} ms"
                         f" yours {r['learner_ms'] or 0:.3g} peak {r['peak_mb'] or 0:.4g} MiB"
                         for r in table.get("rows", []))
        print(f"amp-measure-speed {name}: {doc['status']} {doc['score']}; cuda-synchronize "
              f"{sync.get('status')}{' (unverifiable)' if sync.get('unverifiable') else ''}: "
              f"{sync.get('message', '')[:160]} | {table.get('device_name', '')} {rows}")
        if device == "cuda":
            if wanted == "pass" and (doc["status"] != "pass" or sync.get("status") != "pass"):
                problems.append(f"amp-measure-speed {name}: should pass with cuda-synchronize verified: "
                                f"{[(t['check'], t['status'], t['message'][:160]) for t in doc['tests']]}")
            if wanted == "fail" and sync.get("status") != "fail":
                problems.append(f"amp-measure-speed {name}: cuda-synchronize should fail, got {sync.get('status')}")
        elif wanted == "pass" and doc["status"] != "pass":
            problems.append(f"amp-measure-speed {name} on a CPU: expected a pass, got {doc['status']}")
    return problems


def speed_and_memory(device: str, rounds: int) -> None:
    """Median ms per training step and peak memory, float32 against autocast, per size."""
    import torch
    import torch.nn.functional as F

    from grader.scenarios.measure import build_model, precisions

    where = torch.device(device)
    for width, batch in SIZES if device == "cuda" else ((64, 32),):
        line = []
        base = None
        for dtype in precisions(where):
            torch.manual_seed(0)
            model = build_model(width).to(where)
            optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
            x = torch.randn(batch, width, device=where)
            y = torch.randint(0, 10, (batch,), device=where)
            amp = getattr(torch, dtype) if dtype else None
            times = []
            for n in range(rounds + 3):
                if device == "cuda":
                    torch.cuda.synchronize()
                    if n == 3:
                        torch.cuda.reset_peak_memory_stats()
                started = time.perf_counter()
                optimizer.zero_grad(set_to_none=True)
                with torch.autocast(device, dtype=amp or torch.bfloat16, enabled=amp is not None):
                    loss = F.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
                if device == "cuda":
                    torch.cuda.synchronize()
                if n >= 3:
                    times.append(time.perf_counter() - started)
            median = statistics.median(times)
            base = base or median
            peak = torch.cuda.max_memory_allocated() / 2**20 if device == "cuda" else float("nan")
            line.append(f"{dtype or 'float32'} {median * 1000:.3g} ms (x{base / median:.2f}) peak {peak:.1f} MiB")
            del model, optimizer, x, y, loss
            if device == "cuda":
                torch.cuda.empty_cache()
        print(f"speed and memory, width {width} batch {batch}, median of {rounds}: " + "; ".join(line))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--allow-cpu", action="store_true", help="without a GPU, check the plumbing only")
    parser.add_argument("--limit", type=int, default=None, help="grade only the first N corpus cases")
    parser.add_argument("--jobs", type=int, default=max(1, min(8, (os.cpu_count() or 2) // 2)))
    parser.add_argument("--corpus", type=Path, action="append", default=None,
                        help="a corpus folder (<exercise-id>/<case>.py with '# expect:' headers); "
                             "default tests/amp/corpus")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    device = fail_without_gpu(args.allow_cpu)
    describe_machine(device)
    started = time.monotonic()
    problems = corpus(args.corpus or [REPO / "tests" / "amp" / "corpus"], args.limit, args.jobs)
    problems += measure_exercise(device)
    speed_and_memory(device, args.rounds)
    for problem in problems:
        print("PROBLEM", problem)
    verdict = "passed" if not problems else f"FAILED ({len(problems)} problems)"
    print(f"gpu-check {verdict} on {device} in {time.monotonic() - started:.0f} s")
    return 0 if not problems else 1


if __name__ == "__main__":
    raise SystemExit(main())
