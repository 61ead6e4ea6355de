# expect-status: fail
# expect-output: BLOCKED threads
"""Starts threads until the system says no."""
import threading
import time

started = 0
try:
    while started < 100000:
        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
        started += 1
    raise SystemExit(f"ESCAPED: {started} threads")
except RuntimeError:
    print("BLOCKED threads after", started)


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
