"""Removes grading containers left behind (a crashed worker, say) once past their deadline."""

from __future__ import annotations

import argparse
import logging
import time
from typing import Any

from grader.sandboxes.docker.settings import LABEL_DEADLINE, LABEL_JOB, LABEL_WORKER
from grader.sandboxes.owner import known_dead, worker_identity

log = logging.getLogger(__name__)
GRACE_S = 30  # a job's own cleanup runs right after its deadline; leave it that long first
# A container that ended is removed by its own worker within seconds (after reading its
# results); one still there this long after it ended has nobody left to remove it.
EXITED_GRACE_S = 30


def stale_containers(client: Any, *, now: float | None = None,
                     grace_s: float = GRACE_S) -> list[Any]:
    """Labelled job containers whose deadline passed more than `grace_s` ago."""
    now = time.time() if now is None else now
    stale = []
    for container in client.containers.list(all=True, ignore_removed=True, filters={"label": LABEL_JOB}):
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
    """`python -m grader.sandboxes.docker.janitor [--grace S]`, e.g. from cron."""
    import docker

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--grace", type=float, default=GRACE_S, help="seconds past a deadline")
    options = parser.parse_args(argv)
    print(f"removed {sweep(docker.from_env(), grace_s=options.grace)} stale container(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def _ended_s_ago(container: Any, now: float) -> float:
    from datetime import datetime

    import docker.errors

    try:
        container.reload()
    except docker.errors.NotFound:
        return 0.0  # removed meanwhile (by its worker or another janitor): not ours to take
    finished = container.attrs.get("State", {}).get("FinishedAt", "")
    try:  # Docker writes nanoseconds; Python reads at most microseconds
        stamp = datetime.fromisoformat(finished[:26].rstrip("Z") + "+00:00")
    except ValueError:
        return float("inf")
    return now - stamp.timestamp()


def orphans(client: Any, *, mine: str | None = None, now: float | None = None) -> list[Any]:
    """Containers of this project (LABEL_WORKER) left by a worker that is gone.

    Any of them whose worker is known dead (same host, process gone); elsewhere, ended ones
    (the lifeline stopped them when their worker died) once EXITED_GRACE_S have passed, as a
    live worker removes its own within seconds of their end.
    The containers of `mine` (this worker) are never touched here.
    """
    mine = worker_identity() if mine is None else mine
    now = time.time() if now is None else now
    found = []
    for container in client.containers.list(all=True, ignore_removed=True, filters={"label": LABEL_WORKER}):
        worker = container.labels.get(LABEL_WORKER, "")
        if worker == mine:
            continue
        if known_dead(worker):
            found.append(container)
        elif container.status in ("exited", "dead") and _ended_s_ago(container, now) > EXITED_GRACE_S:
            found.append(container)
    return found


def remove_orphans(client: Any, *, mine: str | None = None, only: str | None = None) -> int:
    """Remove the containers of dead workers (or, with `only`, every container of that worker)."""
    import docker.errors

    if only is not None:
        chosen = client.containers.list(all=True, ignore_removed=True, filters={"label": f"{LABEL_WORKER}={only}"})
    else:
        chosen = orphans(client, mine=mine)
    removed = 0
    for container in chosen:
        try:
            container.remove(force=True, v=True)
            removed += 1
        except docker.errors.NotFound:
            pass
        except docker.errors.APIError as exc:
            log.warning("could not remove %s: %s", container.name, exc)
    if removed:
        log.warning("removed %d sandbox container(s) of grading workers that are gone", removed)
    return removed
