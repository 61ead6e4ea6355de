# expect: pass
# Gradients cleared at the end of each iteration instead of the start.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, max_norm):
    model.train()
    total, count = 0.0, 0
    for inputs, targets in loader:
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs.to(device)), targets.to(device))
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        total += loss.item()
        count += 1
    return total / count
