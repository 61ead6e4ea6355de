# expect-status: fail
"""Leaves a daemon behind (double fork, new session) that would haunt the next job."""
import os
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:  # keeps writing, hoping to still be there for the next learner
            try:
                with open("/tmp/haunt", "a") as handle:
                    handle.write("boo\n")
            except OSError:
                pass
            time.sleep(0.2)
    os._exit(0)


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
