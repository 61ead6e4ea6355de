# expect: pass
# clip_grad_norm_ imported by name before tracing starts.
import torch
from torch.nn.utils import clip_grad_norm_


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, max_norm):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        clip_grad_norm_(model.parameters(), max_norm=max_norm)
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
