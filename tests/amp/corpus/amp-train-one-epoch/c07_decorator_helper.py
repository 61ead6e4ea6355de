# expect: pass
# autocast used as a decorator on a helper, built at import time for CUDA.
import torch


@torch.autocast("cuda")
def compute_loss(model, criterion, inputs, targets):
    return criterion(model(inputs), targets)


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = compute_loss(model, criterion, inputs, targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
