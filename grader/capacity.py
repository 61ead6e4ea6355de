"""Defaults sized to the host: how many gradings run at once and how many warm sandboxes wait."""

# One grading keeps about one core busy (the harness and its runner take turns: the tests ask,
# the runner answers), so a process grades as many jobs at once as it has cores; more only
# queue inside the CPU. Each grading that runs at once should find a warm sandbox, so the pool
# holds as many, as far as memory allows: a warm sandbox holds a harness and a runner with
# torch loaded (MEMBER_MB, measured in docs/grading.md), and at most a third of the memory
# available at start-up goes to sandboxes that are only waiting.

from __future__ import annotations

import os

MEMBER_MB = 700  # one warm sandbox, harness and runner together (resident, measured with margin)
MEMORY_SHARE = 1 / 3


def cores() -> int:
    """CPUs this process may run on (its affinity, which containers and taskset narrow)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def available_mb() -> int | None:
    """MemAvailable from /proc/meminfo; None where there is none."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError):
        pass
    return None


def default_workers() -> int:
    """GRADER_WORKERS when unset: one grading thread per core."""
    return cores()


def default_pool_size() -> int:
    """GRADER_POOL_SIZE when unset: a warm sandbox per grading thread, as memory allows (at least 1)."""
    wanted = default_workers()
    memory = available_mb()
    if memory is None:
        return 1
    return max(1, min(wanted, int(memory * MEMORY_SHARE) // MEMBER_MB))


def env_int(name: str, default: int, minimum: int = 0) -> int:
    """An integer setting from the environment; the default when unset, empty or not a number."""
    try:
        return max(minimum, int(os.environ.get(name) or default))
    except ValueError:
        return default
