# expect: pass
# Clipping done right: unscale_ first (a generous max_norm keeps the reference's result).
import torch
from torch.nn.utils import clip_grad_norm_


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs.to(device)), targets.to(device))
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        clip_grad_norm_(model.parameters(), max_norm=1000.0)
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
