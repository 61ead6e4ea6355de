# expect: fail zero-grad-each-iteration runs
# torch raises: zero_grad() between backward and step ("No inf checks were recorded for this optimizer").
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        optimizer.zero_grad()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
