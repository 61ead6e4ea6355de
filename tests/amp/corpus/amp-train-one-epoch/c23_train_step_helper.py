# expect: pass
# One helper per step, called from the loop.
import torch


def train_step(model, batch, optimizer, criterion, scaler, device):
    inputs, targets = (t.to(device) for t in batch)
    optimizer.zero_grad()
    with torch.autocast(device_type=device.type):
        loss = criterion(model(inputs), targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.item()


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    losses = [train_step(model, batch, optimizer, criterion, scaler, device) for batch in loader]
    return sum(losses) / len(losses)
