# expect: fail fp32-master-weights
# Silent: bfloat16 weights (GradScaler only refuses float16 gradients); updates lose precision.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.bfloat16()
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
