# expect-status: fail
# expect-output: zombies
"""Makes children that exit and are never reaped, until forking fails."""
import os

made = 0
try:
    while made < 5000:
        if os.fork() == 0:
            os._exit(0)
        made += 1
except OSError:
    pass
print("zombies", made)


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
