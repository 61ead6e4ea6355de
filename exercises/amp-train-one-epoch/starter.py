import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device) -> float:
    """One epoch of mixed-precision training over `loader`; returns the mean loss over batches."""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        # TODO: clear the gradients, run the forward pass and the loss under autocast,
        # then backward, step and update through the GradScaler.
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        total += loss.item()
    # TODO: return the mean loss over the batches
    return total
