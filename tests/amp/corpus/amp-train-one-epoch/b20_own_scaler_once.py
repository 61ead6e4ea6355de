# expect: fail one-scaler
# advice: deprecated
# The function ignores the scaler argument and makes its own (deprecated spelling too).
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    my_scaler = torch.cuda.amp.GradScaler()
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        my_scaler.scale(loss).backward()
        my_scaler.step(optimizer)
        my_scaler.update()
        total += loss.item()
    return total / len(loader)
