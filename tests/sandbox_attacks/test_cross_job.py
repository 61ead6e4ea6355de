"""Cross-job attacks: each holds with the jail on, and each escapes with it off (in a throwaway container only)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from grader.sandboxes import jail
from tests.sandbox_attacks import crossjob

CASES = crossjob.cases()
REPO = Path(__file__).resolve().parents[2]
IMAGE = os.environ.get("GRADER_SANDBOX_IMAGE", "learnai-sandbox:latest")
CONTAINER_S = 600  # one case: a cold zygote and two jobs on a loaded host
# The container the jail-off run happens in: a bare host's stand-in (root, writable root
# filesystem), walled so that the attacks that work there cannot reach past it.
WALLS = ["--network", "none", "--pids-limit", "1024", "--memory", "4g", "--memory-swap", "4g",
         "--cpus", "1.5", "--user", "0:0", "--tmpfs", "/dev/shm:size=512m"]


@pytest.mark.slow
@pytest.mark.skipif(not (jail.enabled() and jail.support().isolated), reason=jail.support().describe())
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_jail_holds(case: crossjob.Case) -> None:
    result = crossjob.run_case(case)
    _record("host, jail on", result)
    assert result["escaped"] == [], (result["escaped"], result["verdicts"], result["outputs"])


def _record(where: str, result: dict) -> None:
    """Append to $LEARNAI_XJOB_REPORT (JSON lines), for docs/sandbox.md."""
    if report := os.environ.get("LEARNAI_XJOB_REPORT"):
        with open(report, "a", encoding="utf-8") as handle:
            kept = {key: result[key] for key in ("case", "escaped", "seconds", "verdicts")}
            handle.write(json.dumps({"where": where, **kept}) + "\n")


def _in_container(jail_setting: str) -> dict[str, dict]:
    """Each case in a fresh container of its own (removed after), the jail set as asked.

    One container per case: with the jail off, what one case leaves (its daemon kills every
    later runner) would make the next cases "escape" by the first one's doing.
    """
    if shutil.which("docker") is None or subprocess.run(["docker", "image", "inspect", IMAGE],
                                                        capture_output=True, check=False).returncode:
        pytest.skip(f"no docker engine or no image {IMAGE}")
    results = {}
    for case in CASES:
        name = f"learnai-xjob-{os.getpid()}-{jail_setting}-{case.name.replace('_', '-')}"
        command = ["docker", "run", "--rm", "--name", name, *WALLS, "-v", f"{REPO}:/src:ro",
                   "-w", "/src", "-e", f"GRADER_JAIL={jail_setting}", "-e", "GRADER_SANDBOX=local",
                   "-e", "PYTHONPATH=/src", "-e", "GRADER_POOL_SIZE=1", "--entrypoint", "python", IMAGE,
                   "-m", "tests.sandbox_attacks.crossjob", "--json", case.name]
        try:
            completed = subprocess.run(command, capture_output=True, text=True, timeout=CONTAINER_S,
                                       check=False)
        finally:
            subprocess.run(["docker", "rm", "-f", name], capture_output=True, check=False)
        for line in completed.stdout.splitlines():
            if line.startswith("{"):
                result = json.loads(line)
                results[result["case"]] = result
                _record(f"container, GRADER_JAIL={jail_setting}", result)
        assert case.name in results, completed.stdout[-3000:] + completed.stderr[-3000:]
    return results


@pytest.mark.docker
@pytest.mark.slow
def test_every_attack_escapes_with_the_jail_off_in_a_throwaway_container() -> None:
    # What the suite would let through without the jail: each case must escape here, or it
    # tests nothing. Only ever inside a container: these kill processes and plant files.
    results = _in_container("0")
    held = [name for name, result in results.items() if not result["escaped"]]
    assert set(results) == {case.name for case in CASES}
    assert held == [], {name: results[name]["outputs"] for name in held}


@pytest.mark.docker
@pytest.mark.slow
def test_every_attack_is_held_by_the_jail_inside_a_container() -> None:
    # The same jail in docker's default seccomp profile (Landlock's syscalls are allowed there).
    results = _in_container("1")
    escaped = {name: result["escaped"] for name, result in results.items() if result["escaped"]}
    assert set(results) == {case.name for case in CASES}
    assert escaped == {}
