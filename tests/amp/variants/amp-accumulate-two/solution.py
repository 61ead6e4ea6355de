import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps) -> float:
    """AMP training that steps once every accum_steps batches; returns the mean batch loss."""
    model.train()
    total = 0.0
    optimizer.zero_grad(set_to_none=True)
    for i, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        # Each batch adds 1/k of the gradient, at the scaler's scale: k of them make a mean.
        scaler.scale(loss / accum_steps).backward()
        if (i + 1) % accum_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
        total += loss.item()
    return total / len(loader)
