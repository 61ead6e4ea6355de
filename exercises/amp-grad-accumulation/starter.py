import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps) -> float:
    """AMP training that steps once every accum_steps batches; returns the mean batch loss."""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        # TODO: accumulate the gradients of accum_steps batches before each optimizer step.
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
