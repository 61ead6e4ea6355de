"""The learner proxy (grader.learner.Learner) against a fake runner on a pipe: no learner process.

The fake runner answers each request the way the real runner does (grader.runner), so the
proxy's side is tested alone: values decoded, the learner's errors with their line, memory
errors ending the run, a silent runner timing out.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import torch

from grader import protocol
from grader.learner import Learner, LearnerError, LearnerFatal
from grader.schema import Limits

SOURCE = "def double(x):\n    return x * 2\n\n\nclass Box:\n    pass\n"


class FakeRunner(threading.Thread):
    """Reads requests from one pipe and writes canned replies to the other."""

    def __init__(self, requests: int, replies: dict[str, Any]) -> None:
        super().__init__(daemon=True)
        self.to_runner_r, self.to_runner_w = os.pipe()
        self.from_runner_r, self.from_runner_w = os.pipe()
        self.replies = replies
        self.requests = requests
        self.seen: list[dict[str, Any]] = []

    def run(self) -> None:
        for _ in range(self.requests):
            message = protocol.read_message(self.to_runner_r)
            self.seen.append(message)
            reply = self.replies.get(message.get("name") or message["op"])
            if reply is None:
                continue  # silence: the proxy must time out
            if callable(reply):
                reply = reply(message)
            protocol.write_message(self.from_runner_w, reply)


def proxy(tmp_path: Path, runner: FakeRunner, time_s: float = 5) -> Learner:
    submission = tmp_path / "submission.py"
    submission.write_text(SOURCE)
    learner = Learner(submission, Limits(time_s=time_s), workdir=tmp_path)
    learner._to_child, learner._from_child = runner.to_runner_w, runner.from_runner_r
    learner._ready = True
    learner._deadline = time.monotonic() + time_s
    learner._kill = lambda: None  # there is no process to kill
    runner.start()
    return learner


def test_values_round_trip_and_errors_carry_the_line(tmp_path: Path) -> None:
    def double(message: dict[str, Any]) -> dict[str, Any]:
        (x,) = protocol.decode(message["args"])
        return {"ok": True, "value": protocol.encode(x * 2)}

    runner = FakeRunner(4, {
        "load": {"ok": True},
        "double": double,
        "amp.train": {"ok": True, "value": protocol.encode({"loss": float("nan"), "n": 3})},
        "broken": {"ok": False, "error": {"type": "ZeroDivisionError", "message": "division by zero",
                                           "line": 2}},
    })
    learner = proxy(tmp_path, runner)
    assert learner.load()
    assert torch.equal(learner.call("double", torch.ones(2)), torch.full((2,), 2.0))
    result = learner.scenario("amp.train", seed=1)
    assert result["n"] == 3 and result["loss"] != result["loss"]  # NaN survives the channel
    with pytest.raises(LearnerError) as raised:
        learner.call("broken")
    assert raised.value.line == 2 and "ZeroDivisionError" in str(raised.value)
    assert learner.fatal is None  # a learner error is one check's failure, not the run's end
    assert [m.get("name") or m["op"] for m in runner.seen] == ["load", "double", "amp.train", "broken"]
    assert runner.seen[2]["params"] == protocol.encode({"seed": 1})


def test_memory_error_ends_the_run(tmp_path: Path) -> None:
    runner = FakeRunner(1, {"hog": {"ok": False, "error": {"type": "MemoryError", "message": "", "line": 7}}})
    learner = proxy(tmp_path, runner)
    with pytest.raises(LearnerFatal) as raised:
        learner.call("hog")
    assert raised.value.kind == "memory" and raised.value.line == 7
    with pytest.raises(LearnerFatal):  # every later request ends the same way, without asking
        learner.call("double", 1)


def test_a_silent_runner_times_out(tmp_path: Path) -> None:
    runner = FakeRunner(1, {})
    learner = proxy(tmp_path, runner, time_s=0.3)
    with pytest.raises(LearnerFatal) as raised:
        learner.call("double", 1)
    assert raised.value.kind == "timeout" and learner.fatal is raised.value


def test_a_time_out_carries_the_last_valid_line_the_runner_reported(tmp_path: Path) -> None:
    # The runner is untrusted: a report whose line is no line of the submission (SOURCE has 6)
    # or not an int is dropped; the last good one names the line.
    reports = [{"running": {"line": 2}}, {"running": {"line": 99}}, {"running": {"line": True}},
               {"running": {"line": "5"}}, {"running": {"line": 0}}, {"running": {"line": 4.0}},
               {"running": "line 3"}]

    def stall(_message: dict[str, Any]) -> dict[str, Any]:
        for report in reports[:-1]:
            protocol.write_message(runner.from_runner_w, report)
        return reports[-1]

    runner = FakeRunner(1, {"double": stall})
    learner = proxy(tmp_path, runner, time_s=0.5)
    with pytest.raises(LearnerFatal) as raised:
        learner.call("double", 1)
    assert raised.value.kind == "timeout" and raised.value.line == 2


def test_a_report_before_the_reply_is_not_taken_for_the_reply(tmp_path: Path) -> None:
    def late(_message: dict[str, Any]) -> dict[str, Any]:
        protocol.write_message(runner.from_runner_w, {"running": {"line": 2}})
        return {"ok": True, "value": 4}

    runner = FakeRunner(1, {"double": late})
    assert proxy(tmp_path, runner).call("double", 2) == 4


def test_advice_is_kept_once_and_lines_come_from_the_source(tmp_path: Path) -> None:
    learner = proxy(tmp_path, FakeRunner(0, {}))
    learner.advise({"en": "a", "ja": "あ"})
    learner.advise({"en": "a", "ja": "あ"})
    assert learner.advice == [{"en": "a", "ja": "あ"}]
    assert learner.line_of("double") == 1 and learner.line_of("Box") == 5 and learner.line_of("nope") is None
