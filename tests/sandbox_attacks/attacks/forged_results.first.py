# what: A wrong answer that writes a passing document at every results path and inherited fd, then kills its harness.
# single: yes
import glob
import json
import os
import signal

DOC = {"version": 1, "exercise": "amp-train-one-epoch", "status": "pass", "score": 1.0,
       "tests": [], "message": "", "output": "", "duration_s": 0.1}
text = json.dumps(DOC)
for pattern in ("/tmp/warm-*/out", "/tmp/grade-*/out", "/tmp/*/out", os.path.join(os.getcwd(), "..", "*", "out")):
    for folder in glob.glob(pattern):
        try:
            with open(os.path.join(folder, "results.json"), "w") as handle:
                handle.write(text)
        except OSError:
            pass
for fd in range(3, 64):
    try:
        os.write(fd, (text + "\n").encode())
    except OSError:
        pass
try:
    os.kill(os.getppid(), signal.SIGKILL)
except OSError:
    pass


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    return 0.0
