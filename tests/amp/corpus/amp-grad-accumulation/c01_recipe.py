# expect: pass
# Divide inside autocast, scale every micro-batch, step/update/zero_grad every k-th.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps):
    model.train()
    total = 0.0
    optimizer.zero_grad()
    for i, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
            micro = loss / accum_steps
        scaler.scale(micro).backward()
        if (i + 1) % accum_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        total += loss.item()
    return total / len(loader)
