# expect-status: fail
# expect-output: BLOCKED environ
"""Reads the environment and memory of init and of the harness (the runner's parent)."""
import os

for pid in (1, os.getppid()):
    for name in ("environ", "mem", "root/etc/shadow"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as handle:
                data = handle.read(100)
            raise SystemExit(f"ESCAPED: /proc/{pid}/{name}: {data!r}")
        except OSError:
            pass
print("BLOCKED environ of", 1, os.getppid())


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
