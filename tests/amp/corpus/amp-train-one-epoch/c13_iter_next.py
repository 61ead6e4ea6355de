# expect: pass
# An explicit iterator and next().
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    batches = iter(loader)
    total = 0.0
    for _ in range(len(loader)):
        inputs, targets = next(batches)
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
