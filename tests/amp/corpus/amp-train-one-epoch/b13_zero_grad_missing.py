# expect: fail zero-grad-each-iteration
# Silent: gradients pile up from batch to batch. The scaler's in-place unscale_ shrinks the
# leftovers 65536-fold, so the weights barely change: only the trace can catch this one.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
