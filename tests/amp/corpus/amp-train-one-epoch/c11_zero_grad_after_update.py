# expect: pass
# Gradients cleared at the end of each iteration instead of the start.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs.to(device)), targets.to(device))
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        total += loss.item()
    return total / len(loader)
