import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps) -> float:
    """AMP training, one step per batch for now; returns the mean batch loss."""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        # TODO: step once every accum_steps batches instead of after every batch.
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
