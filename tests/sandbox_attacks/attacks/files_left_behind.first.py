# what: Leaves secrets in /tmp, /dev/shm, /var/tmp and its own job folder for the next learner.
import os

SECRET = b"learnai-secret-of-the-first-job"
for place in ("/tmp", "/dev/shm", "/var/tmp", os.getcwd(), os.path.expanduser("~")):
    path = os.path.join(place, "xjob-left")
    try:
        with open(path, "wb") as handle:
            handle.write(SECRET)
        os.chmod(path, 0o666)
        print("planted", path)
    except OSError as exc:
        print("HELD plant", place, exc.errno)
