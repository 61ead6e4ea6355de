# expect: fail backward-on-scaled-loss weights-match-reference
# Silent: the scaled loss is computed, but backward runs on the plain one.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaled = scaler.scale(loss)
        loss.backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
