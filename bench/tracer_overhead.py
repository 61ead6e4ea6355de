"""CPU seconds of one traced AMP epoch in-process (the tracer's own cost), median over runs.

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.tracer_overhead [-n 60]

Runs amp-train-one-epoch's solution through the AMP scenario (6 batches of 8, the tracer on) in
this process and prints the median CPU time (process_time: less moved by other load than wall
time) with the load average. To compare two commits, run it in each tree (for an older one:
`git archive <commit> grader tests/__init__.py tests/amp/__init__.py tests/amp/amp_helpers.py
bench/__init__.py bench/tracer_overhead.py exercises/amp-train-one-epoch/solution.py | tar -x -C DIR`
then `PYTHONPATH=DIR` from DIR).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from tests.amp.amp_helpers import run_source

SOLUTION = Path(__file__).resolve().parents[1] / "exercises" / "amp-train-one-epoch" / "solution.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=60, help="timed runs (after one untimed)")
    args = parser.parse_args()
    source = SOLUTION.read_text(encoding="utf-8")
    run_source(source, batches=6)  # imports and the first optimizer use are not the tracer's
    times = []
    for _ in range(args.n):
        started = time.process_time()
        run_source(source, batches=6)
        times.append(time.process_time() - started)
    print(f"traced epoch: median CPU {statistics.median(times) * 1000:.2f} ms over {len(times)} runs, "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
