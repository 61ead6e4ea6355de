"""Local sandboxes forked from the zygote start clean: no web-app environment, no other job's files."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.api import run_code
from grader.loader import load_exercise
from grader.sandboxes import zygote_client
from grader.sandboxes.local_warm import LocalMember

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
SECRET = "LEARNAI_ZYGOTE_TEST_SECRET"
LOOKS = f"""
import os, sys
def environ(pid):
    try:
        return open(f"/proc/{{pid}}/environ", "rb").read()
    except OSError as exc:
        return repr(exc).encode()
print("own", b"{SECRET}" in environ("self"), "{SECRET}" in os.environ)
print("harness", b"{SECRET}" in environ(os.getppid()))
print("exercise modules", sorted(m for m in sys.modules if m.startswith(("test_", "solution"))))
print("sandbox pid", os.getppid())
"""


@pytest.mark.slow
def test_a_forked_sandbox_carries_nothing_of_the_web_app_or_another_job(monkeypatch: pytest.MonkeyPatch) -> None:
    if not zygote_client.zygote_supported():
        pytest.skip("no pidfd_open / send_fds here")
    monkeypatch.setenv(SECRET, "the web app's")  # as a SECRET_KEY would be
    monkeypatch.setenv("GRADER_POOL_SIZE", "0")  # each run: a fresh fork of the zygote
    monkeypatch.setenv("GRADER_POOL_ZYGOTE", "1")
    zygote_client.close_zygote()  # one started now, with this environment around it
    exercise = load_exercise(EXERCISES / "amp-train-one-epoch")
    try:
        first = run_code(exercise, LOOKS, sandbox="local")
        second = run_code(exercise, LOOKS, sandbox="local")
        started = zygote_client.current()
        assert started is not None
        # CUDA is never initialised in the zygote: torch's availability check asks NVML.
        assert b"PYTORCH_NVML_BASED_CUDA_CHECK=1" in Path(f"/proc/{started.process.pid}/environ").read_bytes()
    finally:
        zygote_client.close_zygote()
    for doc in (first, second):
        assert doc["status"] == "ok", doc
        assert "own False False" in doc["output"], doc["output"]
        assert "harness False" in doc["output"], doc["output"]
        assert "exercise modules []" in doc["output"], doc["output"]
    pids = [line for doc in (first, second) for line in doc["output"].splitlines()
            if line.startswith("sandbox pid")]
    assert len(set(pids)) == 2, pids  # two sandboxes, not one reused


@pytest.mark.slow
def test_a_warm_sandbox_of_an_ended_zygote_is_never_handed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """A zygote's sandboxes die with it (PR_SET_PDEATHSIG), but a moment after it ends: in that
    moment a pool took one, wrote a Run to it, and the Run ended with no results file (seen
    once in the full suite, under load). A sandbox counts as alive only while its zygote is."""
    if not zygote_client.zygote_supported():
        pytest.skip("no pidfd_open / send_fds here")
    monkeypatch.setenv("GRADER_POOL_ZYGOTE", "1")
    zygote_client.close_zygote()
    member = LocalMember(from_zygote=True)
    try:
        member.wait_ready()
        assert member.alive()
        source = zygote_client.current()
        assert source is not None
        # The moment the race needs, held open: the zygote has ended as this process sees it
        # (its exit status read), while the kernel has not yet run the sandbox's SIGKILL.
        monkeypatch.setattr(source, "alive", lambda: False)
        assert member.process.poll() is None  # the sandbox process itself still runs
        assert not member.alive(), "a sandbox of an ended zygote was still counted as warm"
    finally:
        member.discard()
        zygote_client.close_zygote()
