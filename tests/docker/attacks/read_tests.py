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
for path in glob.glob("/grading/**/test_*.py", recursive=True) + glob.glob(
        "/**/tests/test_basics.py", recursive=True):
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
