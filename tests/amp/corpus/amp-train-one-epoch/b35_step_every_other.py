# expect: fail step-through-scaler weights-match-reference
# Silent: steps only on every second batch (accumulation by accident, no zero_grad in between).
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for i, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        if i % 2 == 1:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        total += loss.item()
    return total / len(loader)
