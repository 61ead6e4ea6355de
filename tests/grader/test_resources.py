"""The registry of per-process sandbox resources: one per process, a child's own, closed in order at exit."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from grader.sandboxes import resources

REPO = Path(__file__).resolve().parents[2]


def test_a_shared_resource_is_made_once_and_again_when_unusable() -> None:
    made: list[object] = []

    def make() -> object:
        made.append(object())
        return made[-1]

    name = "test: made once"
    try:
        first = resources.shared(name, make)
        assert resources.shared(name, make) is first and len(made) == 1
        assert resources.current(name) is first
        again = resources.shared(name, make, usable=lambda value: value is not first)
        assert again is not first and len(made) == 2
        assert resources.take_back(name) is again and resources.current(name) is None
    finally:
        resources.take_back(name)


def test_one_slow_start_holds_up_no_other_resource() -> None:
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(10)
        return "slow"

    thread = threading.Thread(target=resources.shared, args=("test: slow", slow))
    thread.start()
    try:
        assert started.wait(10)
        assert resources.shared("test: quick", lambda: "quick") == "quick"  # while the other starts
    finally:
        release.set()
        thread.join(10)
        resources.take_back("test: slow")
        resources.take_back("test: quick")


def test_a_forked_child_forgets_and_the_parent_keeps() -> None:
    parents = resources.shared("test: forked", object)
    forgotten: list[int] = []
    resources.register("test: forget hook", forget=lambda: forgotten.append(os.getpid()))
    try:
        child = os.fork()
        if child == 0:  # the child: none of the parent's values, every forget hook called
            fresh = resources.shared("test: forked", object)
            os._exit(0 if fresh is not parents and forgotten == [os.getpid()] else 1)
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert resources.current("test: forked") is parents and forgotten == []
    finally:
        resources._resources[:] = [r for r in resources._resources if r.name != "test: forget hook"]
        resources.take_back("test: forked")


def test_exit_closes_in_the_order_registered_and_one_failure_stops_nothing() -> None:
    script = (
        "from grader.sandboxes import resources\n"
        "def fail():\n"
        "    raise RuntimeError('broken')\n"
        "resources.register('first', close=lambda: print('first', flush=True))\n"
        "resources.register('broken', close=fail)\n"
        "resources.register('last', close=lambda: print('last', flush=True))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["first", "last"]
    assert "could not close broken" in done.stderr


def test_every_process_wide_sandbox_state_is_registered() -> None:
    import grader.sandboxes.docker  # noqa: F401 -- registers the docker containers
    import grader.sandboxes.local  # noqa: F401 -- registers the pools, the zygote, local sandboxes

    names = [r.name for r in resources._resources]
    # Pools first: they stop refilling before the sandboxes they start are removed.
    assert names.index("warm pools") < names.index("docker containers")
    assert names.index("warm pools") < names.index("local warm sandboxes")
    assert {"zygote"} <= set(names)


def test_a_child_forked_while_the_background_slot_is_held_can_take_it() -> None:
    from grader.sandboxes import lane

    with lane.background_slot(True):  # the parent's instructor check holds the one slot
        pid = os.fork()
        if pid == 0:  # the child (a Celery prefork worker) must get a slot of its own
            taken = lane._background.acquire(timeout=2)
            os._exit(0 if taken else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
