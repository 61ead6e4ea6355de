"""Benchmark: the same submissions graded in the local and the docker sandbox; medians, overhead."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from grader.loader import load_exercise  # noqa: E402 -- after the path fix above
from grader.sandboxes.base import Job  # noqa: E402
from grader.sandboxes.docker import DockerSandbox, docker_available  # noqa: E402
from grader.sandboxes.local import LocalSandbox  # noqa: E402

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


def timed(sandbox: object, job: Job) -> tuple[float, str]:
    started = time.monotonic()
    doc = sandbox.run(job)  # type: ignore[attr-defined]
    return time.monotonic() - started, f"{doc['status']}/{doc['error_kind'] or '-'}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    if not docker_available():
        print("no Docker engine or no sandbox image (make sandbox-image)", file=sys.stderr)
        return 1
    print(f"bare hardened container (create/start/wait/remove): "
          f"{bare_container_s(options.repeats * 2):.3f} s median")
    print(f"{'submission':40} {'local s':>8} {'docker s':>9} {'overhead':>9}  verdicts")
    overheads = []
    for exercise_id, label, source in SUBMISSIONS:
        exercise = load_exercise(REPO / "exercises" / exercise_id)
        path = exercise.path / source
        code = path.read_text(encoding="utf-8") if path.suffix == ".py" and path.is_file() \
            else source
        job = Job(exercise=exercise, code=code)
        local, docker_ = [], []
        verdicts = set()
        for _ in range(options.repeats):  # interleaved, so load changes hit both alike
            seconds, verdict = timed(LocalSandbox(), job)
            local.append(seconds)
            verdicts.add(("local", verdict))
            seconds, verdict = timed(DockerSandbox(), job)
            docker_.append(seconds)
            verdicts.add(("docker", verdict))
        overhead = statistics.median(docker_) - statistics.median(local)
        overheads.append(overhead)
        shown = ", ".join(sorted({v for _, v in verdicts}))
        print(f"{exercise_id + ' / ' + label:40} {statistics.median(local):8.2f} "
              f"{statistics.median(docker_):9.2f} {overhead:+9.2f}  {shown}")
    print(f"median overhead per submission: {statistics.median(overheads):+.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
