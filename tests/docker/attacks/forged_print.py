# expect-status: fail
"""Prints a perfect results document and hopes the grader reads stdout."""
import json

print(json.dumps({"version": 1, "exercise": "amp-train-one-epoch", "status": "pass",
                  "score": 1.0, "error_kind": None, "tests": []}))


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
