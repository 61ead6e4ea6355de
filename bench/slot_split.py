"""Where a docker slot grading's CPU goes: the worker, the slot's supervisor, the job's processes.

    .venv/bin/python -m bench.slot_split [-n 20]

Grades amp-train-one-epoch's solution -n times, one after the other, through this process's
docker slots (GRADER_SANDBOX=docker, the default slot mode) after a warm-up of three, and
prints per grading:
  - the worker's CPU (this process: the order and files out, the document in, the engine's API);
  - each slot container's cgroup CPU, split into its supervisor's own (forks, the leftover
    check, the job folders emptied) and the rest, its forks' (the job process: harness, the
    jailed runner, pytest, the reference run; the child that empties the job's folders);
and a slot container's start (torch, pytest and the grader imported once), read from a fresh
container's cgroup once it is ready, which a replacement costs again every
GRADER_SLOT_MAX_JOBS jobs (docs/grading.md, "Docker slot containers").
Needs root (the containers' /proc and cgroups) and the sandbox image (`make sandbox-image`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from bench.core_seconds import CGROUP, EXERCISE, ROOT, own_cpu

TICK = os.sysconf("SC_CLK_TCK")


def ours() -> list[str]:
    """The ids of this process's sandbox containers (another server's are not ours to count)."""
    from grader.sandboxes.docker.engine import engine
    from grader.sandboxes.docker.settings import LABEL_OWNER, owner

    listed = engine().client.containers.list(filters={"label": f"{LABEL_OWNER}={owner()}"})
    return [container.id for container in listed]


def containers() -> dict[str, tuple[float, float]]:
    """Each of our containers' cgroup CPU, and its supervisor's own CPU (its forks' is the rest)."""
    found = {}
    for name in ours():
        group = CGROUP / name
        try:
            total = int((group / "cpuacct.usage").read_text()) / 1e9
            stats = {}
            for pid in (group / "cgroup.procs").read_text().split():
                command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                if not command[0].endswith(b"docker-init"):
                    stats[pid] = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            # The supervisor is the one whose parent is the container's init, not another of these.
            supervisor = next(fields for fields in stats.values() if fields[1] not in stats)
            own = (int(supervisor[11]) + int(supervisor[12])) / TICK
        except (OSError, IndexError, ValueError, StopIteration):
            continue  # removed while we looked
        found[name] = (total, own)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20)
    options = parser.parse_args()
    os.environ["GRADER_SANDBOX"] = "docker"
    from grader.api import grade_code, warm_up
    from grader.loader import load_exercise
    from grader.sandboxes.docker.settings import slot_max_jobs
    from grader.sandboxes.docker.slot import jobs_served_on_average

    exercise = load_exercise(ROOT / "exercises" / EXERCISE)
    code = exercise.solution_path.read_text(encoding="utf-8")
    before_start = set(containers())
    assert warm_up("docker", wait_s=600), "the slots did not start"
    time.sleep(2)  # ready means imported; the last samples settle
    starts = [total for name, (total, _) in containers().items() if name not in before_start]
    for _ in range(3):
        grade_code(exercise, code, sandbox="docker")
    if options.n > slot_max_jobs() * 0.75 - 3:
        print(f"note: -n {options.n} may reach a slot's job limit; a replacement would count in the figures")
    time.sleep(0.5)
    first, worker = containers(), own_cpu()
    for _ in range(options.n):
        result = grade_code(exercise, code, sandbox="docker")
        assert result["status"] == "pass", result.get("message")
    time.sleep(0.5)
    last, worker = containers(), own_cpu() - worker
    n = options.n
    total = own = 0.0
    for name, (cpu, supervisor) in last.items():
        if name in first:
            total += cpu - first[name][0]
            own += supervisor - first[name][1]
    print(f"per grading, {n} gradings: worker {worker / n:.3f} core-s | slot containers {total / n:.3f} "
          f"(supervisor {own / n:.3f}, job processes {(total - own) / n:.3f}) | together {(worker + total) / n:.3f}")
    if starts:
        start = statistics.median(starts)
        print(f"a slot container's start: median {start:.2f} core-s over {len(starts)}; at "
              f"GRADER_SLOT_MAX_JOBS={slot_max_jobs()} (a slot serves 3/4 to all of it) "
              f"{start / jobs_served_on_average(slot_max_jobs()):.3f} core-s a grading")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    code = main()
    os._exit(code)  # the slots end with their lifeline (this process)
