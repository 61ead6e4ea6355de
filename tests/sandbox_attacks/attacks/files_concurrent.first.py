# what: A job at work keeps its data in its folder and /dev/shm (default modes) while another job runs.
# together: yes
import time

open("learnai-started", "w").close()  # the driver starts the other job once it sees this

with open("learnai-secret.txt", "w") as handle:
    handle.write("learnai-secret of a concurrent job")
try:
    with open("/dev/shm/xjob-during", "w") as handle:
        handle.write("learnai-secret in shared memory")
except OSError as exc:
    print("HELD shm", exc.errno)
time.sleep(6)
