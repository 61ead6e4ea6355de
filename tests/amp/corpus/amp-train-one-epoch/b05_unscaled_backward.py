# expect: fail backward-on-scaled-loss runs
# torch raises: loss.backward() then scaler.step() ("_scale is None").
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        loss.backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
