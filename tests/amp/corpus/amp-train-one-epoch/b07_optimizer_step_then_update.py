# expect: fail step-through-scaler runs
# torch raises: optimizer.step() then scaler.update() ("No inf checks were recorded prior to update").
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        optimizer.step()
        scaler.update()
        total += loss.item()
    return total / len(loader)
