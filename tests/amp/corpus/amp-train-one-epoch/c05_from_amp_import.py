# expect: pass
# from torch.amp import autocast, with keyword arguments.
from torch.amp import autocast


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total, count = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with autocast(device_type=device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
        count += 1
    return total / count
