"""Issue 15: the runner's own side is loaded before learner code, and exhaustion is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.learner import Learner, LearnerFatal
from grader.runner import Runner
from grader.schema import Limits

PROBE = """
import sys, threading
print("safetensors", "safetensors.torch" in sys.modules)
print("scenarios", "grader.scenarios.amp" in sys.modules)
print("stack", threading.stack_size())
def answer():
    return 42
"""


@pytest.mark.slow
def test_the_runner_has_loaded_its_codec_and_scenarios_before_learner_code(tmp_path: Path) -> None:
    submission = tmp_path / "submission.py"
    submission.write_text(PROBE)
    learner = Learner(submission, Limits(), workdir=tmp_path)
    learner.start()
    try:
        assert learner.load(), learner.load_error
        assert learner.call("answer") == 42
    finally:
        learner.close()
    # A thread explosion used to eat the address space with 8 MiB stacks, after which the
    # runner could not map safetensors' library to send a reply.
    assert "safetensors True" in learner.output
    assert "scenarios True" in learner.output
    assert "stack 1048576" in learner.output


def test_exhaustion_in_the_runners_own_work_is_named() -> None:
    runner = Runner("submission.py", processes=64)
    reply = runner.exhausted(RuntimeError("can't start new thread"))
    assert reply["ok"] is False
    assert reply["error"]["kind"] == "resources"
    assert "too many threads or processes" in reply["error"]["message"]
    assert "limit 64" in reply["error"]["message"]
    other = runner.exhausted(KeyError("nope"))
    assert other["error"]["kind"] == "internal"


def test_the_harness_turns_a_resources_reply_into_a_runtime_verdict_naming_it(tmp_path: Path) -> None:
    learner = Learner(tmp_path / "submission.py", Limits(), workdir=tmp_path)
    message = "the program started too many threads or processes (300 threads running; limit 256)"
    with pytest.raises(LearnerFatal) as caught:
        learner._value({"ok": False, "error": {"kind": "resources", "message": message}})
    assert caught.value.kind == "runtime"
    assert "too many threads" in str(caught.value)
