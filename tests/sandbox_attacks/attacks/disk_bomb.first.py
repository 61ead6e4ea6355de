# what: Fills every writable place with files, and leaves a writer behind.
import ctypes
import os
import time

chunk = b"\0" * (1 << 20)


def fill(place, files):
    for index in range(files):
        try:
            with open(os.path.join(place, f"xjob-fill-{index}"), "wb") as handle:
                for _ in range(16):
                    handle.write(chunk)
        except OSError:
            return


if os.fork() == 0:
    os.setsid()
    ctypes.CDLL(None).prctl(15, b"xjob-filler", 0, 0, 0)
    while True:
        for place in ("/tmp", "/dev/shm", "/var/tmp"):
            fill(place, 4)
        time.sleep(0.5)
for place in (os.getcwd(), "/tmp", "/dev/shm", "/var/tmp"):
    fill(place, 8)
time.sleep(1)
print("disk filled")
