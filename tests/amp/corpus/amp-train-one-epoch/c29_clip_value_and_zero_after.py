# expect: pass
# advice: clips
# Gradients cleared after the update (set_to_none=False), and clipped by value after unscale_.
import torch
from torch.nn.utils import clip_grad_value_


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    optimizer.zero_grad(set_to_none=False)
    losses = []
    for inputs, targets in loader:
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs.to(device)), targets.to(device))
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        clip_grad_value_(model.parameters(), clip_value=0.05)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=False)
        losses.append(loss.detach())
    return torch.stack(losses).float().mean().item()
