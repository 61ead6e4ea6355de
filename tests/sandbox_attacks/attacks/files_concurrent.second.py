# what: Searches every folder it can see for the concurrent job's files, and /dev/shm.
import glob
import os
import time

time.sleep(0.5)
found = []
for pattern in ("/tmp/*/learnai-secret.txt", "/tmp/*/*/learnai-secret.txt", "/dev/shm/xjob-during",
                "/dev/shm/*", os.path.join(os.path.dirname(os.getcwd()), "*", "learnai-secret.txt")):
    for path in glob.glob(pattern):
        if os.path.dirname(path) == os.getcwd():
            continue
        try:
            with open(path, "rb") as handle:
                if b"learnai-secret" in handle.read():
                    found.append(path)
        except OSError:
            pass
print("ESCAPED read", found) if found else print("HELD files")
