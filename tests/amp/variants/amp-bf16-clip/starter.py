import torch


def train_one_epoch(model, loader, optimizer, criterion, device, max_norm) -> float:
    """One epoch of bfloat16 training; returns the mean loss."""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        loss.backward()
        # TODO: keep the gradient norm at most max_norm before the step.
        optimizer.step()
        total += loss.item()
    return total / len(loader)
