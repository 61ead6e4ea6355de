# expect: fail zero-grad-each-iteration
# Silent: gradients cleared once, before the loop.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    optimizer.zero_grad()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
