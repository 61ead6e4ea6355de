import torch


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    """One epoch of mixed-precision training with no GradScaler; returns the mean loss."""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        # bfloat16 has float32's exponent range: gradients do not underflow the way float16's
        # do, so the loss needs no scaling and the optimizer steps directly.
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)
