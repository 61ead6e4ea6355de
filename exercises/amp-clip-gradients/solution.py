import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, max_norm) -> float:
    """One epoch of AMP training, gradient norm clipped to max_norm; returns the mean loss."""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        scaler.scale(loss).backward()
        # The gradients are still multiplied by the loss scale: divide it out first, so that
        # max_norm means what it says. scaler.step() then knows not to unscale a second time.
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
