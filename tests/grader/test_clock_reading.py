"""grader.amp.clock: where a timed loop synchronises CUDA, read from the source."""

from pathlib import Path

import pytest

from grader.amp.clock import timed_loop

SOLUTION = (Path(__file__).parents[2] / "exercises/amp-measure-speed/solution.py").read_text()

HELPER = '''
import time, torch
def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)
def wait(device):
    sync(device)
def time_steps(step, device, steps):
    times = []
    for _ in range(steps):
        wait(device)
        t0 = time.perf_counter()
        step()
        wait(device)
        times.append(time.perf_counter() - t0)
    return times
'''

# The shape of many public benchmark loops: one synchronize after the loop, none per step.
AFTER_THE_LOOP = '''
import time, torch
def bench(step, steps):
    torch.cuda.synchronize()
    for _ in range(steps):
        start = time.perf_counter()
        step()
        elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
'''

ONLY_BEFORE_START = '''
from time import perf_counter
import torch
def bench(step, steps):
    out = []
    for _ in range(steps):
        torch.cuda.synchronize()
        start = perf_counter()
        step()
        out.append(perf_counter() - start)
    return out
'''

NESTED = '''
import time, torch
def bench(step, sizes, steps):
    for size in sizes:
        for _ in range(steps):
            start = time.perf_counter()
            step(size)
            torch.cuda.current_stream().synchronize()
            stop = time.perf_counter()
        torch.cuda.synchronize()
'''


def test_the_solution_synchronises_before_both_reads():
    loop = timed_loop(SOLUTION)
    assert loop is not None
    assert not loop.unsynced_start and not loop.unsynced_stop
    lines = SOLUTION.splitlines()
    assert "perf_counter" in lines[loop.start_line - 1] and "perf_counter" in lines[loop.stop_line - 1]


def test_a_helper_that_synchronises_counts_through_other_helpers():
    loop = timed_loop(HELPER)
    assert loop is not None and not loop.unsynced_start and not loop.unsynced_stop


def test_synchronising_outside_the_timed_loop_does_not_count():
    loop = timed_loop(AFTER_THE_LOOP)
    assert loop is not None and loop.unsynced_start and loop.unsynced_stop
    assert loop.stop_line == 8


def test_a_synchronise_before_the_start_only_leaves_the_stop_unsynced():
    loop = timed_loop(ONLY_BEFORE_START)
    assert loop is not None and not loop.unsynced_start and loop.unsynced_stop


def test_the_innermost_timed_loop_is_read():
    loop = timed_loop(NESTED)
    assert loop is not None and loop.line == 5
    assert loop.unsynced_start and not loop.unsynced_stop


@pytest.mark.parametrize("source", ["", "def f(:\n", "import time\nt = time.perf_counter()\n",
                                    "for i in range(3):\n    time.perf_counter()\n"])
def test_no_timed_loop_or_no_parse_gives_none(source):
    assert timed_loop(source) is None


def test_a_long_chain_of_helpers_is_read_in_linear_time():
    # Learner code is untrusted: 3,000 helpers each calling the next (the last synchronises)
    # must still be read at once, and the chain counts as a synchronisation.
    chain = "".join(f"def h{i}():\n    h{i + 1}()\n" for i in range(3000))
    chain += "def h3000():\n    torch.cuda.synchronize()\n"
    source = "import time, torch\n" + chain + (
        "def bench(step):\n    for _ in range(3):\n        h0()\n        t = time.perf_counter()\n"
        "        step()\n        h0()\n        d = time.perf_counter() - t\n")
    loop = timed_loop(source)
    assert loop is not None and not loop.unsynced_start and not loop.unsynced_stop
