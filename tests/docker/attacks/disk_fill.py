# expect-status: fail
# expect-output: BLOCKED disk
"""Fills every writable place it can find with data."""
import os

chunk = b"\0" * (1 << 20)
for place in ("/tmp", "/dev/shm", os.getcwd(), os.path.expanduser("~")):
    written = 0
    try:
        with open(os.path.join(place, "fill.bin"), "wb") as handle:
            while written < (8 << 30):
                handle.write(chunk)
                written += len(chunk)
        raise SystemExit(f"ESCAPED: wrote {written} bytes into {place}")
    except OSError as exc:
        print(f"BLOCKED disk {place} after {written >> 20} MB: {type(exc).__name__} {exc.errno}")


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
