# what: Grabs memory until stopped, and leaves children holding what they got.
import ctypes
import os
import time

for _ in range(3):
    if os.fork() == 0:
        os.setsid()
        ctypes.CDLL(None).prctl(15, b"xjob-hog", 0, 0, 0)
        hog = []
        try:
            for _ in range(12):  # 768 MB each, touched
                hog.append(bytearray(b"\1" * (64 << 20)))
        except MemoryError:
            pass
        while True:
            time.sleep(1)
time.sleep(3)
print("hogs started")
