# expect-status: fail
# expect-output: BLOCKED kill
"""Tries to kill the harness (its parent) and init, hard and soft."""
import os
import signal

for pid in (os.getppid(), 1):
    for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):
        try:
            os.kill(pid, sig)
            raise SystemExit(f"ESCAPED: signalled {pid} with {sig.name}")
        except PermissionError:
            pass
print("BLOCKED kill", os.getppid(), 1)


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
