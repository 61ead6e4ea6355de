# expect-status: fail
"""Tries to leave a 10 MB results file for the host to swallow."""
big = ('{"version": 1, "status": "pass", "score": 1.0, "tests": [], "pad": "'
       + "x" * (10 << 20) + '"}')
for path in ("/grading/out/results.json", "/grading/out/results.json.tmp", "/tmp/results.json"):
    try:
        with open(path, "w") as handle:
            handle.write(big)
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
