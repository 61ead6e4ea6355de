"""Benchmark: the same submissions graded in the local and the docker sandbox; medians, overhead."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from grader.loader import load_exercise
from grader.sandboxes.base import Job
from grader.sandboxes.docker import DockerSandbox, docker_available
from grader.sandboxes.local import LocalSandbox

REPO = Path(__file__).resolve().parent.parent

SUBMISSIONS = [  # (exercise, label, file in the exercise folder or literal code)
    ("amp-train-one-epoch", "solution", "solution.py"),
    ("amp-train-one-epoch", "starter", "starter.py"),
    ("amp-train-one-epoch", "syntax error", "def train_one_epoch(:\n"),
    ("tensors-dtype-memory", "solution", "solution.py"),
]


def bare_container_s(repeats: int) -> float:
    """Create, start, wait and remove a hardened container that runs `true`: the floor."""
    import docker

    client = docker.from_env()
    times = []
    for _ in range(repeats):
        started = time.monotonic()
        container = client.containers.create(
            "learnai-sandbox:latest", ["true"], network_mode="none", read_only=True,
            cap_drop=["ALL"], security_opt=["no-new-privileges"], user="10002:10002",
            labels={"learnai.job": "bench", "learnai.deadline": "0"})
        container.start()
        container.wait(timeout=60)
        container.remove(force=True, v=True)
        times.append(time.monotonic() - started)
    return statistics.median(times)


def timed(sandbox: object, job: Job) -> tuple[float, float, str]:
    """Wall seconds, seconds outside the harness's own grading, and the verdict."""
    started = time.monotonic()
    doc = sandbox.run(job)  # type: ignore[attr-defined]
    wall = time.monotonic() - started
    verdict = f"{doc['status']}/{doc['error_kind'] or '-'}"
    return wall, wall - float(doc.get("duration_s") or 0), verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    if not docker_available():  # a missing engine or image, or one built from other code
        print("no Docker engine or no current sandbox image: run `make sandbox-image`",
              file=sys.stderr)
        return 1
    print(f"bare hardened container (create/start/wait/remove): "
          f"{bare_container_s(options.repeats * 2):.3f} s median")
    # "outside" is wall time minus the harness's own duration_s: interpreter start-up,
    # imports and (for docker) the container's life cycle, without the grading work,
    # whose time swings with the host's load.
    print(f"{'submission':38} {'local s':>8} {'docker s':>9} {'paired +':>9} "
          f"{'outside local':>14} {'outside docker':>15}  verdicts")
    paired_all, outside_all = [], []
    for exercise_id, label, source in SUBMISSIONS:
        exercise = load_exercise(REPO / "exercises" / exercise_id)
        path = exercise.path / source
        code = path.read_text(encoding="utf-8") if source.endswith(".py") else source
        job = Job(exercise=exercise, code=code)
        rows: dict[str, list[tuple[float, float]]] = {"local": [], "docker": []}
        verdicts = set()
        for _ in range(options.repeats):  # interleaved, so load changes hit both alike
            for name, sandbox in (("local", LocalSandbox()), ("docker", DockerSandbox())):
                wall, outside, verdict = timed(sandbox, job)
                rows[name].append((wall, outside))
                verdicts.add(verdict)
        paired = statistics.median(
            in_docker[0] - in_local[0]
            for in_local, in_docker in zip(rows["local"], rows["docker"], strict=True))
        outside = {name: statistics.median(o for _, o in values) for name, values in rows.items()}
        paired_all.append(paired)
        outside_all.append(outside["docker"] - outside["local"])
        walls = {name: statistics.median(w for w, _ in values) for name, values in rows.items()}
        print(f"{exercise_id + ' / ' + label:38} {walls['local']:8.2f} {walls['docker']:9.2f} "
              f"{paired:+9.2f} {outside['local']:14.2f} {outside['docker']:15.2f}  "
              + ", ".join(sorted(verdicts)))
    print(f"median overhead per submission: {statistics.median(paired_all):+.2f} s paired wall, "
          f"{statistics.median(outside_all):+.2f} s outside the harness")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
