# what: The victim: a job at work with a secret in its environment and its memory.
# together: yes
import ctypes
import os
import time

open("learnai-started", "w").close()  # the driver starts the other job once it sees this

ctypes.CDLL(None).prctl(15, b"xjob-victim", 0, 0, 0)
os.environ["LEARNAI_VICTIM"] = "learnai-secret-environment"
SECRET = b"learnai-secret-memory" * 4
time.sleep(6)
print("victim finished")
