"""An orphaned runner cannot spin forever: the kernel ends it at its CPU backstop."""

from __future__ import annotations

import signal
import subprocess
import sys

from grader.learner import cpu_backstop_s

SPIN = ("from grader.runner import apply_limits\n"
        "apply_limits(2048, 16, 256, cpu_s=1)\n"
        "while True:\n    pass\n")


def test_an_endless_loop_is_ended_at_the_cpu_backstop():
    # A harness killed outright leaves no one to stop its runner; this limit still does.
    done = subprocess.run([sys.executable, "-c", SPIN], timeout=120, check=False)
    assert done.returncode in (-signal.SIGXCPU, -signal.SIGKILL)


def test_the_backstop_is_far_past_the_wall_clock_limit():
    # Never the learner's verdict: the harness stops the job at time_s of wall clock first.
    assert cpu_backstop_s(30) >= 3 * 30 + 30
