# expect-status: fail
# expect-output: BLOCKED shadow
"""Reads the password hashes."""
try:
    print("ESCAPED:", open("/etc/shadow").read()[:80])
    raise SystemExit("ESCAPED: /etc/shadow")
except OSError as exc:
    print("BLOCKED shadow", type(exc).__name__)


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
