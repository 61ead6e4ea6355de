import torch


def train_one_epoch(model, loader, optimizer, criterion, device, max_norm) -> float:
    """One epoch of bfloat16 training with the gradient norm clipped to max_norm; returns the mean loss."""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        loss.backward()
        # No GradScaler: the gradients are already at their true size, so clip them as they are.
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
        total += loss.item()
    return total / len(loader)
