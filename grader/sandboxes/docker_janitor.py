"""Removes grading containers left behind (a crashed worker, say) once past their deadline."""

from __future__ import annotations

import argparse
import logging
import time
from typing import Any

from grader.sandboxes.docker_settings import LABEL_DEADLINE, LABEL_JOB

log = logging.getLogger(__name__)
GRACE_S = 30  # a job's own cleanup runs right after its deadline; leave it that long first


def stale_containers(client: Any, *, now: float | None = None,
                     grace_s: float = GRACE_S) -> list[Any]:
    """Labelled job containers whose deadline passed more than `grace_s` ago."""
    now = time.time() if now is None else now
    stale = []
    for container in client.containers.list(all=True, filters={"label": LABEL_JOB}):
        try:
            deadline = float(container.labels.get(LABEL_DEADLINE, "0"))
        except ValueError:
            deadline = 0.0  # unreadable: old enough by definition
        if deadline + grace_s < now:
            stale.append(container)
    return stale


def sweep(client: Any, *, grace_s: float = GRACE_S) -> int:
    """Remove stale job containers (and their /grading volumes); returns how many went."""
    import docker.errors

    removed = 0
    for container in stale_containers(client, grace_s=grace_s):
        try:
            container.remove(force=True, v=True)
            removed += 1
        except docker.errors.NotFound:
            pass  # its own job, or another janitor, removed it first
        except docker.errors.APIError as exc:
            log.warning("janitor could not remove %s: %s", container.name, exc)
    if removed:
        log.info("janitor removed %d stale grading container(s)", removed)
    return removed


def main(argv: list[str] | None = None) -> int:
    """`python -m grader.sandboxes.docker_janitor [--grace S]`, e.g. from cron."""
    import docker

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--grace", type=float, default=GRACE_S, help="seconds past a deadline")
    options = parser.parse_args(argv)
    print(f"removed {sweep(docker.from_env(), grace_s=options.grace)} stale container(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
