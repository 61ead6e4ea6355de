# expect-status: fail
"""Plants symlinks where the host reads results, pointing at host-side secrets."""
import os

for link in ("/grading/out/results.json", "/grading/out", "/grading/results.json",
             "/tmp/results.json"):
    for target in ("/etc/shadow", "/var/run/docker.sock", "/proc/1/root/etc/shadow"):
        try:
            os.symlink(target, link)
        except OSError:
            pass


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
