# expect: pass
# advice: loss
# The loss computed after the autocast block: accepted, with advice to move it inside.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
        loss = criterion(outputs, targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
