# expect-status: fail
# expect-output: BLOCKED shm
"""Fills /dev/shm (a tmpfs that counts against memory)."""
chunk = b"\1" * (1 << 20)
written = 0
try:
    with open("/dev/shm/fill", "wb") as handle:
        while written < (16 << 30):
            handle.write(chunk)
            written += len(chunk)
    raise SystemExit(f"ESCAPED: {written} bytes in /dev/shm")
except OSError as exc:
    print(f"BLOCKED shm after {written >> 20} MB: errno {exc.errno}")


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
