# expect: pass
# A GradScaler with bfloat16 is unnecessary but harmless.
import torch


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        scaler = getattr(train_one_epoch, "scaler", None) or torch.amp.GradScaler(device.type)
        train_one_epoch.scaler = scaler
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
