# expect-status: fail
# expect-output: BLOCKED solution
"""Copies the reference solution instead of writing one."""
import os

for path in ("/grading/exercises/amp-train-one-epoch/solution.py",
             "/grading/exercises/amp-train-one-epoch/exercise.toml"):
    try:
        exec(open(path).read())
        raise SystemExit(f"ESCAPED: read {path}")
    except OSError:
        pass
for root in ("/grading", "/opt", "/tmp", "/home", "/root", "/srv", "/var", "/usr/local"):
    for top, _dirs, files in os.walk(root):
        if "solution.py" in files:
            raise SystemExit(f"ESCAPED: found {top}/solution.py")
print("BLOCKED solution")


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
