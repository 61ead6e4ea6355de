"""A sandbox's stdin lifeline ends it only when the process that made it lets go, never mid-grading."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

# A sandbox in small: the lifeline watch, then a pytest run (fd capture, as the harness grades)
# whose test interrupts the watch's blocked read with a signal, as one interrupted it in real
# gradings. It prints "graded" only if it is still alive after the test.
SANDBOX = textwrap.dedent('''
    import signal, sys, threading
    import pytest
    from grader.sandboxes.warm_entry import watch_lifeline

    signal.signal(signal.SIGUSR1, lambda *_: None)  # a handler: the read is interrupted, then retried
    watch_lifeline()
    rc = pytest.main([sys.argv[1], "-q", "-p", "no:cacheprovider", "--capture=fd"])
    print("graded", rc, flush=True)
    sys.stdin.read()  # then wait until the lifeline's other end lets go
''')
TEST = textwrap.dedent('''
    import os, signal, threading, time

    def test_interrupted_while_fd_0_is_captured():
        assert os.readlink("/proc/self/fd/0") == "/dev/null"  # pytest's capture points fd 0 there
        watch = next(t for t in threading.enumerate() if t.name == "lifeline")
        for _ in range(5):
            signal.pthread_kill(watch.ident, signal.SIGUSR1)
            time.sleep(0.05)
''')


REPO = Path(__file__).resolve().parents[2]


def test_a_signal_during_a_captured_test_does_not_end_the_sandbox(tmp_path: Path) -> None:
    (tmp_path / "sandbox.py").write_text(SANDBOX)
    (tmp_path / "test_interrupt.py").write_text(TEST)
    process = subprocess.Popen([sys.executable, str(tmp_path / "sandbox.py"), str(tmp_path / "test_interrupt.py")],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})  # this checkout's grader
    assert process.stdout is not None and process.stdin is not None
    try:
        seen = []
        for line in process.stdout:  # pytest's report, then ours (or the end: it died)
            seen.append(line.decode())
            if line.startswith(b"graded"):
                break
        # Before the fix the watch re-read fd 0, found /dev/null's end and exited 0 mid-test.
        assert seen and seen[-1].startswith("graded 0"), "".join(seen)
        assert process.poll() is None  # alive while its lifeline is held
    finally:
        process.stdin.close()  # the maker lets go: the sandbox ends itself
        returncode = process.wait(timeout=30)
    assert returncode == 0
