# expect: fail weights-match-reference
# Clips each value instead of the total norm: unscaled first, but not what was asked.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, max_norm):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_value_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
