# expect: fail trains-every-batch weights-match-reference
# Stops after a few batches (and returns the mean of those it trained on).
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total, n = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
        n += 1
        if n == 3:
            break
    return total / n
