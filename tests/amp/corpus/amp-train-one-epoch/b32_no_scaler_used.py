# expect: fail backward-on-scaled-loss step-through-scaler
# Silent: autocast without the scaler at all (float16 gradients would underflow on a GPU).
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)
