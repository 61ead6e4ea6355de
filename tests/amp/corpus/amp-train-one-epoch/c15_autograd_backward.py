# expect: pass
# torch.autograd.backward on the scaled loss.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs.to(device)), targets.to(device))
        torch.autograd.backward(scaler.scale(loss))
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
