"""What the job jail adds to one job: enter() in the forked runner, end() in the harness after it.

    .venv/bin/python -m bench.jail_cost [-n 20]

From a process that has imported torch (as the zygote and every harness has), forks -n runners
one after the other; each enters a fresh jail (grader.sandboxes.jail.enter) and exits; the
parent then ends the job (jail.end: kill the job's uid, remove its folder, sweep /dev/shm, /tmp,
/var/tmp), as a harness does (a subreaper with no child left takes the fast path). Also a
plain fork-and-exit for comparison. Prints medians and p90 in milliseconds
with the load average. enter() runs while a warm sandbox waits for its job (off the learner's
clock); end() runs after the results are written, before the harness exits (on it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from bench.stats import percentile
from grader.sandboxes import jail


def once(jailed: bool) -> tuple[float, float]:
    job = jail.new_job() if jailed else None
    read_end, write_end = os.pipe()
    parent = os.getpid()
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # pragma: no cover
        try:
            if job is not None:
                jail.enter(job, parent)
            os.write(write_end, b"k")
        finally:
            os._exit(0)
    os.close(write_end)
    os.read(read_end, 1)
    entered = time.perf_counter() - started
    os.close(read_end)
    os.waitpid(pid, 0)
    started = time.perf_counter()
    if job is not None:
        jail.end(job, descendants_of=os.getpid(), reap=True)  # as a harness does
    return entered, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20)
    options = parser.parse_args()
    import torch  # noqa: F401 -- the size of process a runner is forked from

    jail.prepare()
    jail.harden_harness(None)  # a subreaper, as a harness is
    print(jail.support().describe())
    for label, jailed in (("plain fork", False), ("jailed fork", True)):
        samples = [once(jailed) for _ in range(options.n)]
        enter = [s[0] * 1000 for s in samples]
        end = [s[1] * 1000 for s in samples]
        print(f"{label:12} fork->ready median {statistics.median(enter):6.1f} ms p90 {percentile(enter, 0.9):6.1f} ms"
              f" | end() median {statistics.median(end):6.1f} ms p90 {percentile(end, 0.9):6.1f} ms")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
