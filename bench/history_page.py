"""Time the history page of a learner with 20 maximum-size submissions (64 KB each).

    .venv/bin/python -m bench.history_page [-n 50] [--shape edits|worst|capped]

"edits": each submission changes a few lines of the one before (what learners do);
"worst": submissions shaped for difflib's quadratic case (many distinct repeated lines), the
shape that froze the site before diffs were capped. Prints the first (cold) view, then the
median and p95 of the next n views, in milliseconds, wall clock and this thread's CPU. The
target is p95 < 100 ms. On a shared machine wall time includes the neighbours; CPU does not.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from app import create_app
from app.accounts.users import create_user
from app.extensions import db
from app.models import Submission
from bench.stats import percentile
from grader.results import TestResult, summarize

ROOT = Path(__file__).resolve().parents[1]

EXERCISE = "loop-train-epoch"
SUBMISSIONS = 20
MAX_BYTES = 64 * 1024


def edits(count: int) -> list[str]:
    """Code of 64 KB in ~1000 lines; each version edits 5 random lines of the previous one."""
    rng = random.Random(9)  # noqa: S311 -- reproducible benchmark data, not a secret
    lines = [f"    value_{i:04d} = compute(batch, step={i}, scale={rng.random():.12f})  # n"
             for i in range(MAX_BYTES // 66)]
    versions = []
    for _ in range(count):
        for index in rng.sample(range(len(lines)), 5):
            lines[index] = lines[index].replace("compute", "recompute", 1)[:65]
        versions.append("\n".join(lines)[:MAX_BYTES])
    return versions


def worst(count: int) -> list[str]:
    """64 KB of short lines, 100 distinct values each repeated: quadratic for difflib."""
    versions = []
    for step in range(count):
        lines = [f"x{(i * (7 + 2 * step)) % 100}" for i in range(MAX_BYTES // 4)]
        versions.append("\n".join(lines)[:MAX_BYTES])
    return versions


def capped(count: int) -> list[str]:
    """64 KB in 2000 lines of 32 bytes (the line cap), 100 distinct lines: the CPU cap stops it."""
    versions = []
    for step in range(count):
        lines = [f"x{(i * (7 + 2 * step)) % 100:<30}" for i in range(2000)]
        versions.append("\n".join(lines)[:MAX_BYTES])
    return versions


SHAPES = {"edits": edits, "worst": worst, "capped": capped}


def build(folder: Path, codes: list[str]):
    app = create_app({
        "TESTING": True, "SECRET_KEY": "bench", "GRADER_RECOVER_ON_START": False,
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder / 'bench.db'}",
        "GRADER_SANDBOX": "local",
    })
    result = summarize(EXERCISE, [TestResult(
        name="test_loop", check="loop", title="The loop", status="fail", message="Not yet.",
        hint="Zero the gradients.", line=3, points=0, max_points=1)]).to_dict()
    with app.app_context():
        db.create_all()
        user = create_user("bench@example.org", "a long timing pass phrase")
        for code in codes:
            db.session.add(Submission(exercise_id=EXERCISE, learner=user.learner_key, code=code,
                                      status="done", result=result))
            db.session.commit()  # one by one: created_at orders them
        user_id = user.id
        db.session.remove()
    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"] = f"{user_id}:0"
        session["_fresh"] = True
    return client


def timed(client) -> tuple[float, float, int]:
    wall, cpu = time.perf_counter(), time.thread_time()
    response = client.get(f"/exercises/{EXERCISE}/history")
    assert response.status_code == 200, response.status_code
    return ((time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000,
            len(response.get_data()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=50, help="views to time after the first")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="edits")
    args = parser.parse_args()
    codes = SHAPES[args.shape](SUBMISSIONS)
    with tempfile.TemporaryDirectory() as folder:
        client = build(Path(folder), codes)
        cold_wall, cold_cpu, size = timed(client)
        runs = [timed(client) for _ in range(args.n)]
    walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
    print(f"shape={args.shape} submissions={SUBMISSIONS} x {len(codes[0])} bytes, "
          f"page {size / 1e6:.1f} MB")
    print(f"first view: wall {cold_wall:.0f} ms, cpu {cold_cpu:.0f} ms")
    print(f"next {args.n} views: wall median {statistics.median(walls):.0f} ms, "
          f"p95 {percentile(walls, 0.95):.0f} ms; cpu median {statistics.median(cpus):.0f} ms, "
          f"p95 {percentile(cpus, 0.95):.0f} ms")


if __name__ == "__main__":
    main()
