"""amp-measure-speed's solution graded N times in a row: how often an honest timing passes.

    PYTHONPATH=$PWD .venv/bin/python bench/measure_honest.py [--runs 10] [--sandbox local]

Grades exercises/amp-measure-speed/solution.py unchanged (its own sizes) through the real
grader and prints, per run, the verdict, the seconds it took, the learner's figure against the
grader's own median for each width and precision, and the load average; then the pass count.
The check at stake is figures-match-clock: the learner's median against the grader's clock of
the same steps, on whatever else the machine is doing at the time.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from grader.api import grade_code
from grader.loader import load_exercise

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--sandbox", default="local")
    args = parser.parse_args()
    exercise = load_exercise(REPO / "exercises" / "amp-measure-speed")
    code = exercise.solution_path.read_text("utf-8")
    passed = 0
    for number in range(1, args.runs + 1):
        started = time.monotonic()
        doc = grade_code(exercise, code, lang="en", sandbox=args.sandbox)
        took = time.monotonic() - started
        passed += doc["status"] == "pass"
        failed = [f"{t['check']}: {t['message'][:300]}" for t in doc["tests"]
                  if t["status"] not in ("pass",) and not t.get("unverifiable")]
        rows = (doc.get("measurement") or {}).get("rows", [])
        figures = ", ".join(f"{r['width']}/{r['precision']} yours {r['learner_ms'] or 0:.3g} ms, "
                            f"grader {r['min_ms']:.3g}/{r['median_ms']:.3g}/{r['max_ms']:.3g}"
                            for r in rows)
        load = "/".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"run {number}: {doc['status']} score {doc['score']} in {took:.1f} s, load {load}; {figures}"
              + (f"; FAILED {failed}" if failed else ""), flush=True)
    print(f"passed {passed} of {args.runs}")
    return 0 if passed == args.runs else 1


if __name__ == "__main__":
    raise SystemExit(main())
