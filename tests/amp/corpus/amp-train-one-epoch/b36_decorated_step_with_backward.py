# expect: fail backward-outside-autocast
# Silent: autocast decorates the whole train step, backward included.
import torch


@torch.autocast(device_type="cuda")
def train_step(model, inputs, targets, optimizer, criterion, scaler):
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.item()


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        total += train_step(model, inputs.to(device), targets.to(device), optimizer, criterion, scaler)
    return total / len(loader)
