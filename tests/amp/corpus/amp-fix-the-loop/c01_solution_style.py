# expect: pass
# The reference style.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device) -> float:
    """One epoch of mixed-precision training; returns the mean loss over the batches."""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        # 1. Clear the gradients in every iteration, not once before the loop.
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        # 2. Backward outside autocast. 3. The scaler passed in, not a new one per batch.
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
