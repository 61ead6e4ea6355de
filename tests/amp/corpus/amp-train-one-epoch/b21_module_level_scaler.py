# expect: fail one-scaler
# A GradScaler made at import time instead of the one passed in.
import torch

SCALER = torch.amp.GradScaler("cuda")


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        SCALER.scale(loss).backward()
        SCALER.step(optimizer)
        SCALER.update()
        total += loss.item()
    return total / len(loader)
