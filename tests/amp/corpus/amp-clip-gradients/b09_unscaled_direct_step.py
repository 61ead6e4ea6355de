# expect: fail step-through-scaler
# Silent: unscale_, clip, then optimizer.step(): inf/NaN steps would not be skipped.
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
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
        scaler.update()
        total += loss.item()
    return total / len(loader)
