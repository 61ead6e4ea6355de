# expect: pass
# The forward pass lives in a helper that opens autocast itself.
import torch


def forward_and_loss(model, criterion, inputs, targets, device):
    with torch.autocast(device_type=device.type):
        outputs = model(inputs)
        return criterion(outputs, targets)


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = forward_and_loss(model, criterion, inputs, targets, device)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
