"""Cross-job attacks through the local sandbox: one job against another, run at once or one after the other.

    python -m tests.sandbox_attacks.crossjob [CASE ...] [--json]

Each case is a pair of submissions in attacks/: NAME.first.py (the attacker, or the victim of a
concurrent attack) and NAME.second.py (the next or concurrent job). A `# together: yes` first
job runs while the second does (the second starts once the first has made `learnai-started` in
its folder); otherwise the second starts after the first has ended. A second job marked
`# second: grade` is the reference solution, graded: it must pass. A `# single: yes` first job
is graded alone and must not pass (it is a wrong answer that forges its document).

A case ESCAPED when: a job printed `ESCAPED ...`; the honest grading after it did not pass; the
forging job passed; or, once the first job has ended, a process named `xjob-*` or a file
named `xjob-*` is left in /tmp, /dev/shm or /var/tmp. The suite holds only if no case did.
The same driver runs with the jail off in a throwaway container (test_cross_job.py, marked
docker), where every case must escape: never run it with the jail off on a real host.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = Path(__file__).parent / "attacks"
EXERCISE = ROOT / "exercises" / "amp-train-one-epoch"
PREFIX = "xjob-"  # every attack's processes and files are named so
START_WAIT_S = 90  # a cold sandbox on a loaded 2-core host
LEFTOVER_PLACES = ("/tmp", "/dev/shm", "/var/tmp")  # noqa: S108 -- what the attacks try


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    first: str
    second: str | None
    together: bool
    grade_second: bool
    single: bool


def header(source: str, key: str) -> str:
    for line in source.splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    return ""


def cases() -> list[Case]:
    found = []
    for first_path in sorted(CASES_DIR.glob("*.first.py")):
        name = first_path.name.removesuffix(".first.py")
        first = first_path.read_text(encoding="utf-8")
        second_path = CASES_DIR / f"{name}.second.py"
        second = second_path.read_text(encoding="utf-8") if second_path.exists() else None
        found.append(Case(name, header(first, "what"), first, second,
                          header(first, "together") == "yes",
                          second is not None and header(second, "second") == "grade",
                          header(first, "single") == "yes"))
    return found


def _exercise():
    from grader.loader import load_exercise

    return load_exercise(EXERCISE)


def _grade(code: str) -> dict[str, Any]:
    from grader.grading import grade_code

    return grade_code(_exercise(), code, sandbox="local")


def _run(code: str) -> dict[str, Any]:
    from grader.grading import run_code

    return run_code(_exercise(), code, sandbox="local")


def _started_markers() -> set[str]:
    base = tempfile.gettempdir()
    return set(glob.glob(f"{base}/learnai-jobs-*/job-*/learnai-started") +
               glob.glob(f"{base}/learner-*/learnai-started") + glob.glob(f"{base}/*/learnai-started"))


def leftovers() -> list[str]:
    """Processes and files named xjob-* (what every attack names itself and its files)."""
    found = []
    ours = os.readlink("/proc/self/ns/pid")
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                comm = Path(f"/proc/{pid}/comm").read_text().strip()
                # Another PID namespace is another container (this suite's own jail-off run).
                if comm.startswith(PREFIX) and os.readlink(f"/proc/{pid}/ns/pid") != ours:
                    continue
            except OSError:
                continue
            if comm.startswith(PREFIX):
                found.append(f"process {pid} {comm}")
    for place in LEFTOVER_PLACES:
        found += [f"file {path}" for path in glob.glob(f"{place}/{PREFIX}*")]
    return found


def run_case(case: Case) -> dict[str, Any]:
    """Both jobs, then what escaped (an empty list: the case held)."""
    started = time.monotonic()
    docs: dict[str, dict[str, Any]] = {}
    if case.single:
        docs["first"] = _grade(case.first)
    elif case.together:
        before = _started_markers()
        thread = threading.Thread(target=lambda: docs.__setitem__("first", _run(case.first)))
        thread.start()
        deadline = time.monotonic() + START_WAIT_S
        while _started_markers() <= before and time.monotonic() < deadline and thread.is_alive():
            time.sleep(0.05)
        docs["second"] = _run(case.second or "")
        thread.join()
    else:
        docs["first"] = _run(case.first)
    time.sleep(0.5)  # whatever it left has had time to show itself
    left = leftovers()
    if not case.single and not case.together:
        docs["second"] = _grade((EXERCISE / "solution.py").read_text()) if case.grade_second \
            else _run(case.second or "")
    escaped = [line.strip() for doc in docs.values()
               for line in (doc.get("output") or "").splitlines() if "ESCAPED" in line]
    escaped += [f"left behind: {item}" for item in left]
    if case.single and docs["first"]["status"] == "pass":
        escaped.append("the forged document was taken: a wrong answer passed")
    if case.grade_second and docs["second"]["status"] != "pass":
        escaped.append(f"the next honest grading did not pass: {docs['second']['status']} "
                       f"{docs['second'].get('error_kind')} {docs['second'].get('message', '')[:200]}")
    return {"case": case.name, "what": case.what, "escaped": escaped,
            "seconds": round(time.monotonic() - started, 1),
            "verdicts": {key: [doc.get("status"), doc.get("error_kind") or (doc.get("error") or {}).get("kind")]
                         for key, doc in docs.items()},
            "outputs": {key: (doc.get("output") or "")[-1500:] for key, doc in docs.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--json", action="store_true", help="one JSON line per case")
    options = parser.parse_args(argv)
    from grader.sandboxes import jail

    print(f"# {jail.support().describe()}; GRADER_JAIL={os.environ.get('GRADER_JAIL', 'auto')} "
          f"(jail {'on' if jail.enabled() else 'off'})", flush=True)
    for case in cases():
        if options.cases and case.name not in options.cases:
            continue
        result = run_case(case)
        if options.json:
            print(json.dumps(result), flush=True)
        else:
            state = "ESCAPED" if result["escaped"] else "held"
            print(f"{case.name:22} {state:8} {result['seconds']:5.1f} s  {result['verdicts']}  "
                  f"{'; '.join(result['escaped'])[:300]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
