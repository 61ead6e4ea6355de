import torch


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    """One epoch of float32 training over `loader`; returns the mean loss over the batches."""
    # TODO: make sure the model is in training mode.
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        # TODO: clear the gradients, then forward, loss, backward and step.
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        total += loss.item()
    # TODO: return the mean, not the sum.
    return total
