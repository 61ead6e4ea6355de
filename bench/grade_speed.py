"""Grade AMP corpus submissions end to end (local sandbox) and report seconds per submission.

    .venv/bin/python -m bench.grade_speed [-n 10] [--exercise amp-train-one-epoch] [--jobs 1] [-v]

Prints one line per submission (verdict, failing checks, seconds) and the median and p90;
the target is a median of at most 3 s on a 2-core machine. It measures cold gradings: the
warm pool is off unless GRADER_POOL_SIZE is set (one grading after another would otherwise
race its own pool's refill; bench/latency.py measures warm).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.stats import percentile
from grader.api import grade_code
from grader.loader import load_exercise
from tests.amp.corpus_cases import EXERCISES, Case, cases, failing_checks

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("GRADER_POOL_SIZE", "0")


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def grade(case: Case) -> tuple[Case, dict, float, float]:
    """Grade one case: (case, results, wall seconds, CPU seconds of the processes it ran).

    CPU seconds are exact with --jobs 1 and say what a grading costs on a busy machine,
    where wall time mostly measures the neighbours.
    """
    exercise = load_exercise(EXERCISES / case.exercise)
    cpu, start = child_cpu(), time.perf_counter()
    doc = grade_code(exercise, case.code, sandbox="local")
    return case, doc, time.perf_counter() - start, child_cpu() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10, help="submissions to grade (0: all)")
    parser.add_argument("--exercise", default=None, help="only this exercise's corpus")
    parser.add_argument("--jobs", type=int, default=1, help="gradings at once (1 measures latency)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each failing message")
    options = parser.parse_args()
    chosen = cases(options.exercise)
    if options.n:
        chosen = chosen[: options.n]
    times: list[float] = []
    cpus: list[float] = []
    mismatches = 0
    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        for case, doc, seconds, cpu in pool.map(grade, chosen):
            times.append(seconds)
            cpus.append(cpu)
            failing = failing_checks(doc)
            ok = doc["status"] == case.status and (case.status == "pass" or failing == case.failing)
            mismatches += not ok
            print(f"{'ok ' if ok else 'BAD'} {seconds:5.2f}s "
                  f"cpu {cpu:5.2f}s {case.id:52} {doc['status']:5} {' '.join(sorted(failing))}")
            if options.verbose or not ok:
                for test in doc["tests"]:
                    if test["status"] in ("fail", "error"):
                        print(f"      [{test['check']}] line {test['line']}: {test['message']}")
                for note in doc["advice"]:
                    print(f"      advice: {note}")
    load = os.getloadavg()[0]
    print(f"\n{len(times)} submissions: median {statistics.median(times):.2f} s, "
          f"p90 {percentile(times, 0.9):.2f} s (wall, load average {load:.1f} on "
          f"{os.cpu_count()} CPUs); CPU per grading median {statistics.median(cpus):.2f} s; "
          f"mismatches {mismatches}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
