# what: Leaves a daemon (double fork, new session) that stops every later job's runner it can find.
import ctypes
import os
import signal
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        ctypes.CDLL(None).prctl(15, b"xjob-daemon", 0, 0, 0)
        while True:
            try:
                for pid in os.listdir("/proc"):
                    try:
                        with open(f"/proc/{pid}/comm") as handle:
                            if handle.read().strip() == "learner-runner":
                                os.kill(int(pid), signal.SIGKILL)
                    except (OSError, ValueError):
                        pass
            except OSError:
                pass
            time.sleep(0.05)
    os._exit(0)
time.sleep(0.3)
print("daemon started")
