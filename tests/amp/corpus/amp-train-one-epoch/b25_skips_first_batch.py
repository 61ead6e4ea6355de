# expect: fail trains-every-batch mean-loss-returned weights-match-reference
# Skips the first batch with continue.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total, n = 0.0, 0
    for i, (inputs, targets) in enumerate(loader):
        if i == 0:
            continue
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
        n += 1
    return total / n
