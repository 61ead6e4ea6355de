# expect: fail backward-outside-autocast zero-grad-each-iteration one-scaler
# The starter as given: all three planted mistakes are named.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device) -> float:
    """One epoch of mixed-precision training; returns the mean loss over the batches."""
    model.train()
    optimizer.zero_grad(set_to_none=True)
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        scaler = torch.amp.GradScaler(device.type)
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
            scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
