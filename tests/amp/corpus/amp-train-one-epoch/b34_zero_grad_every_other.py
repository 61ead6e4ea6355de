# expect: fail zero-grad-each-iteration
# Silent: gradients cleared on every second batch only.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for i, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        if i % 2 == 0:
            optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
