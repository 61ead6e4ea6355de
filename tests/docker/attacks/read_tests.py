# expect-status: fail
# expect-output: BLOCKED tests
"""Looks for the hidden tests: the grading folder, and any test_*.py on the disk."""
import glob
import os

try:
    listing = os.listdir("/grading/exercises")
    raise SystemExit(f"ESCAPED: {listing}")
except OSError:
    pass
found = []
for root in ("/grading", "/opt", "/tmp", "/home", "/root", "/srv", "/var", "/usr/local"):
    found += glob.glob(f"{root}/**/test_basics.py", recursive=True)
for path in glob.glob("/grading/**/test_*.py", recursive=True) + found:
    try:
        print("ESCAPED:", open(path).read()[:200])
        raise SystemExit(f"ESCAPED: read {path}")
    except OSError:
        pass
print("BLOCKED tests")


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
