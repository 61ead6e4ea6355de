"""The forked learner runner (grader.runner_fork) keeps the boundary an exec'd one had."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from grader import runner_fork
from grader.learner import Learner
from grader.schema import Limits

PROBE = """
import os
def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return line.split()[1]
print("uid", os.getuid(), os.geteuid(), "gid", os.getgid(), "groups", os.getgroups())
print("caps", status("CapEff"), status("CapPrm"), status("CapInh"))
print("env", sorted(os.environ))
print("fds", sorted(int(fd) for fd in os.listdir("/proc/self/fd")))
for attempt in (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.setuid(10001)):
    try:
        attempt()
        print("ESCAPED")
    except PermissionError:
        print("BLOCKED")
def answer():
    import torch
    return torch.ones(3).sum().item()
"""
SECRET = "LEARNAI_TEST_SECRET"


def start(tmp_path: Path, runner_user: str | None) -> Learner:
    submission = tmp_path / "submission.py"
    submission.write_text(PROBE)
    runner_fork.prepare("torch")
    learner = Learner(submission, Limits(), workdir=tmp_path, runner_user=runner_user, fork=True)
    learner.start()
    return learner


def test_the_runner_is_forked_and_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET, "do not pass on")
    learner = start(tmp_path, None)
    try:
        assert isinstance(learner._process, runner_fork.ForkedProcess)
        assert learner.load(), learner.load_error
        assert learner.call("answer") == 3.0
    finally:
        learner.close()
    assert SECRET not in learner.output  # the harness's environment is replaced
    assert "env ['HOME', 'LANG', 'MALLOC_ARENA_MAX', 'MKL_NUM_THREADS', 'OMP_NUM_THREADS'" in learner.output
    fds = next(line for line in learner.output.splitlines() if line.startswith("fds"))
    assert fds.startswith("fds [0, 1, 2, 3, 4,"), fds  # the channel and stdio; listdir's own is last
    assert len(fds.split(",")) == 6, fds
    assert learner._process.poll() is not None  # reaped by close()


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to another uid needs root")
def test_a_forked_runner_as_another_uid_keeps_no_capability() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="fork-test-"))  # pytest's tmp_path is 0700 root's
    learner = start(workdir, "271828:271828")
    try:
        assert learner.load(), learner.load_error
        assert learner.call("answer") == 3.0
    finally:
        learner.close()
        shutil.rmtree(workdir, ignore_errors=True)
    assert "uid 271828 271828 gid 271828 groups []" in learner.output
    assert "caps 0000000000000000 0000000000000000 0000000000000000" in learner.output
    assert learner.output.count("BLOCKED") == 3 and "ESCAPED" not in learner.output
