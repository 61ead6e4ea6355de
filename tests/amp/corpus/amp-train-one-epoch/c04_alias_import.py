# expect: pass
# autocast imported under another name.
import torch
from torch import autocast as ac


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    losses = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with ac(device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
    return sum(losses) / len(losses)
