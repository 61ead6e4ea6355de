import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    total = 0.0
    for x, y in loader:
        out = model(x.t())
        total += criterion(out, y).item()
    return total
