# expect: fail backward-outside-autocast
# Silent: a helper that runs backward is called inside the autocast block.
import torch


def backprop(scaler, loss):
    scaler.scale(loss).backward()


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
            backprop(scaler, loss)
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
