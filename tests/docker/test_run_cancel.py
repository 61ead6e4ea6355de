"""A Run's cancel event (the learner's Stop) kills its container at once: nothing of it is left."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from grader.api import run_code

pytestmark = pytest.mark.docker

ENDLESS = "import time\nprint('started', flush=True)\ntime.sleep(10**6)\n"


def test_a_cancelled_run_is_killed_and_says_stopped(client: Any, roomy_flagship_exercise, no_residue):
    cancel = threading.Event()
    done: list[dict] = []
    worker = threading.Thread(target=lambda: done.append(run_code(
        roomy_flagship_exercise, ENDLESS, lang="ja", sandbox="docker", cancel=cancel)))
    worker.start()
    # Give the container time to start the learner code (the stop must kill a live sandbox);
    # nothing is timed: the check is on what ended it (only the cancel path says "stopped").
    worker.join(timeout=15)
    assert not done, done  # still sleeping: nothing but the cancel can end it this soon
    cancel.set()
    worker.join(timeout=120)
    assert done, "the cancelled Run did not end"
    doc = done[0]
    assert doc["status"] == "error" and doc["error"]["kind"] == "stopped", doc
    assert "停止しました" in doc["error"]["message"]  # only the cancel path says "stopped"
