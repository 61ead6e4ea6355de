# what: The next job looks for what the first left in the shared places and in old job folders.
import glob

found = []
for pattern in ("/tmp/xjob-left", "/dev/shm/xjob-left", "/var/tmp/xjob-left",
                "/tmp/*/xjob-left", "/tmp/*/*/xjob-left"):
    for path in glob.glob(pattern) or [pattern]:
        try:
            with open(path, "rb") as handle:
                if b"learnai-secret" in handle.read():
                    found.append(path)
        except OSError:
            pass
print("ESCAPED read", found) if found else print("HELD files")
