"""scripts/gpu-check.sh on a machine without a GPU: it fails clearly, never silently; and the
runner's memory cap that a GPU host chooses (GRADER_MEMORY_RLIMIT=data)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "gpu-check.sh"


def run(env_changes: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT)], cwd=REPO, env={**os.environ, **env_changes}, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU: the check would run")
def test_without_a_gpu_it_exits_2_and_says_why() -> None:
    done = run({"PY": sys.executable})
    assert done.returncode == 2, done
    assert "FAILED: no CUDA GPU here" in done.stderr
    assert "corpus" not in done.stdout  # nothing was graded on the CPU in its place


def test_without_its_packages_it_exits_3_and_names_them(tmp_path: Path) -> None:
    bare = tmp_path / "python-without-site"
    bare.write_text(f"#!/bin/sh\nexec {sys.executable} -S \"$@\"\n")
    bare.chmod(bare.stat().st_mode | stat.S_IXUSR)
    done = run({"PY": str(bare)})
    assert done.returncode == 3, done
    assert "missing Python packages: torch pytest pydantic" in done.stderr


@pytest.mark.parametrize(("setting", "capped"), [("data", "RLIMIT_DATA"), ("", "RLIMIT_AS")])
def test_a_gpu_host_caps_written_memory_instead_of_address_space(setting: str, capped: str) -> None:
    code = ("import resource\nfrom grader.runner import apply_limits\napply_limits(512, 16, 256)\n"
            "print(resource.getrlimit(resource.RLIMIT_DATA)[0], resource.getrlimit(resource.RLIMIT_AS)[0])")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "GRADER_MEMORY_RLIMIT": setting})
    assert done.returncode == 0, done.stderr
    data, address = (int(x) for x in done.stdout.split())
    limits = {"RLIMIT_DATA": data, "RLIMIT_AS": address}
    assert limits.pop(capped) == 512 * 2**20
    assert next(iter(limits.values())) != 512 * 2**20
