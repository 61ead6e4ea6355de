# expect: pass
# Detached losses stacked, mean taken once, returned as a float.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    losses = []
    for inputs, targets in loader:
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs.to(device)), targets.to(device))
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.detach())
    return torch.stack(losses).mean().item()
