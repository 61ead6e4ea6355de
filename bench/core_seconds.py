"""Core-seconds per grading: the CPU one grading costs, its share of warm-pool refills included.

    .venv/bin/python -m bench.core_seconds [-n 8] [--sandboxes local,docker]
        [--compare /path/to/other/checkout [--compare-image TAG]]

For amp-train-one-epoch's solution, one grading after another:
  - cold: GRADER_POOL_SIZE=0, every grading starts its sandbox;
  - warm: a pool of one; each grading takes the warm sandbox and the pool starts its
    replacement, and the next grading waits until that replacement is ready. The CPU of
    every sandbox started (the first fill, each refill) is counted, less one idle start (the
    member still waiting at the end), so the figure is what a grading costs in a steady
    stream: its own work plus the refill it causes.
Local CPU is exact (getrusage of the sandbox processes, reaped; where sandboxes are forks of
the zygote, /proc/<zygote>/stat: its own and its reaped children's). Docker CPU is read from each
job container's cpuacct cgroup while it lives (sampled every 50 ms, so the last few
milliseconds of a container may be missed), plus the CPU this process spends talking to the
engine; the engine's own (dockerd, containerd) is not counted.
--compare runs the same measurement with another checkout's grader (its .venv and its
code) in a child process first, so "before" and "after" come from one run on one load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXERCISE = "amp-train-one-epoch"
CGROUP = Path("/sys/fs/cgroup/cpuacct/docker")


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def zygote_cpu() -> float:
    """The local zygote's CPU and its ended sandboxes' (a checkout without a zygote: 0)."""
    try:
        from grader.sandboxes.zygote_client import current
    except ImportError:
        return 0.0
    found = current()
    return found.cpu_seconds() if found is not None else 0.0


class ContainerCpu:
    """Sums the CPU of every job container this process owns, sampled from cgroup v1."""

    def __init__(self) -> None:
        from grader.sandboxes.docker.settings import LABEL_OWNER, owner

        self.label = f"{LABEL_OWNER}={owner()}"
        self.seen: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> ContainerCpu:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def total(self) -> float:
        return sum(self.seen.values())

    def _ours(self) -> list[str]:
        from grader.sandboxes.docker.engine import engine

        found = engine().client.containers.list(all=True, filters={"label": self.label})
        return [container.id for container in found]

    def _sample(self) -> None:
        ids: list[str] = []
        last_list = 0.0
        while not self._stop.is_set():
            if time.monotonic() - last_list > 0.25:  # listing costs; reading a cgroup does not
                try:
                    ids = self._ours()
                except Exception:  # noqa: BLE001, S112 -- a container removed while listed
                    continue
                last_list = time.monotonic()
            for container_id in ids:
                try:
                    usage = int((CGROUP / container_id / "cpuacct.usage").read_text()) / 1e9
                except (OSError, ValueError):
                    continue  # gone, or not created yet
                self.seen[container_id] = max(self.seen.get(container_id, 0.0), usage)
            time.sleep(0.05)


def measure(sandbox: str, n: int) -> dict[str, float]:
    os.environ["GRADER_SANDBOX"] = sandbox
    from grader.api import grade_code, warm_up
    from grader.loader import load_exercise
    from grader.sandboxes import get_sandbox
    from grader.sandboxes import pool as pools

    exercise = load_exercise(ROOT / "exercises" / EXERCISE)
    code = exercise.solution_path.read_text(encoding="utf-8")
    figures: dict[str, float] = {}
    counter = ContainerCpu() if sandbox == "docker" else None

    def cpu() -> float:
        return child_cpu() + own_cpu() + zygote_cpu() + (counter.total() if counter else 0.0)

    def grade() -> float:
        started = time.perf_counter()
        result = grade_code(exercise, code, sandbox=sandbox)
        if result["status"] != "pass":
            print(f"  not a pass: {result['status']} {result.get('error_kind')}: "
                  f"{result.get('message', '')[:200]}", flush=True)
        return time.perf_counter() - started

    if counter:
        counter.__enter__()
    try:
        for warm in (False, True):
            pools.close_all()
            os.environ["GRADER_POOL_SIZE"] = "1" if warm else "0"
            backend = get_sandbox(sandbox)
            if warm:  # one idle start: what the member left waiting at the end costs
                before = cpu()
                assert warm_up(sandbox, wait_s=600), "the pool did not fill"
                pools.close_all()
                time.sleep(0.5)
                idle_start = cpu() - before
            grade()  # the first grading of a kind pays imports (and docker's per-limits pool)
            if warm:
                backend.warm_pool().wait_filled(600)
            before = cpu()
            walls = []
            for _ in range(n):
                walls.append(grade())
                if warm:
                    backend.warm_pool().wait_filled(600)
            if warm:
                pools.close_all()
                time.sleep(0.5)
            spent = cpu() - before - (idle_start if warm else 0.0)
            mode = "warm" if warm else "cold"
            figures[f"{mode}_cpu"] = spent / n
            figures[f"{mode}_wall"] = statistics.median(walls)
            if warm:
                figures["idle_start_cpu"] = idle_start
    finally:
        if counter:
            counter.__exit__()
    return figures


def run_elsewhere(tree: Path, sandbox: str, n: int, image: str | None = None) -> dict[str, float]:
    """The same measurement with another checkout's code and interpreter (and sandbox image)."""
    python = tree / ".venv" / "bin" / "python"
    env = dict(os.environ, PYTHONPATH=str(tree))
    if image:
        env["GRADER_SANDBOX_IMAGE"] = image
    done = subprocess.run([str(python), str(Path(__file__).resolve()), "--json", "-n", str(n),  # noqa: S603
                           "--sandboxes", sandbox, "--root", str(tree)],
                          env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=8, help="gradings per mode")
    parser.add_argument("--sandboxes", default="local,docker")
    parser.add_argument("--compare", type=Path, default=None, help="another checkout, run first")
    parser.add_argument("--compare-image", default=None,
                        help="the sandbox image built from --compare's grader (docker)")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    ROOT = options.root
    sys.path.insert(0, str(ROOT))
    if options.json:  # the child of --compare: one sandbox, one JSON line
        print(json.dumps(measure(options.sandboxes, options.n)))
        return 0
    for sandbox in options.sandboxes.split(","):
        rows = []
        if options.compare:
            rows.append((f"{options.compare}", run_elsewhere(options.compare, sandbox, options.n,
                                                                options.compare_image)))
        rows.append(("this checkout", run_elsewhere(ROOT, sandbox, options.n)))
        for label, got in rows:
            print(f"{sandbox:6} {label}: cold {got['cold_cpu']:.2f} core-s/grading "
                  f"(wall median {got['cold_wall']:.2f} s) | warm incl. refill "
                  f"{got['warm_cpu']:.2f} core-s/grading (wall median {got['warm_wall']:.2f} s; "
                  f"one warm start {got['idle_start_cpu']:.2f} core-s) "
                  f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
