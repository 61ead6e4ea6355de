"""What checking the reference first costs per grading: one run of the folder's solution, then a cached verdict.

    .venv/bin/python -m bench.amp_reference_check [-n 15]

For each AMP exercise, times grader.amp.outcome.check_reference cold (an empty cache folder:
the solution runs under the tracer and is judged) and cached (the verdict read back by
fingerprint), n times each, and prints the medians in milliseconds with the load average.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import tempfile
import time
from pathlib import Path

from grader.amp import outcome
from grader.loader import load_exercise
from grader.testing import check_info

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = sorted([*ROOT.glob("exercises/amp-*"), *ROOT.glob("tests/amp/variants/amp-*")])


def declared(folder: Path) -> list[str]:
    """The registered checks a folder's tests declare (as the kit reads them at grading time)."""
    slugs = []
    for path in sorted((folder / "tests").glob("test_*.py")):
        spec = importlib.util.spec_from_file_location(f"bench_{folder.name}_{path.stem}".replace("-", "_"), path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        slugs += [info.slug for value in vars(module).values() if (info := check_info(value)) is not None]
    return slugs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=15, help="timings per exercise and kind")
    options = parser.parse_args()
    from grader.amp.checks import all_checks

    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for folder in FOLDERS:
        exercise = load_exercise(folder)
        if exercise.config.amp is None:
            continue
        spec = importlib.util.spec_from_file_location("bench_solution", exercise.solution_path)
        solution = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(solution)
        slugs = [s for s in declared(folder) if s in all_checks()]
        cold, cached = [], []
        for _ in range(options.n):
            with tempfile.TemporaryDirectory() as cache:
                os.environ[outcome.CACHE_ENV] = cache
                start = time.perf_counter()
                problems = outcome.check_reference(solution, folder, exercise.config.amp, exercise.config.entry, slugs)
                cold.append(time.perf_counter() - start)
                start = time.perf_counter()
                outcome.check_reference(solution, folder, exercise.config.amp, exercise.config.entry, slugs)
                cached.append(time.perf_counter() - start)
            assert not problems, problems
        print(f"{folder.name:24s} cold median {statistics.median(cold) * 1000:7.1f} ms   "
              f"cached median {statistics.median(cached) * 1000:6.2f} ms   ({len(slugs)} checks)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
