# expect: pass
# model.zero_grad() clears the same gradients as optimizer.zero_grad().
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        model.zero_grad()
        with torch.autocast(device.type):
            loss = criterion(model(inputs.to(device)), targets.to(device))
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
