# expect: pass
# The context manager is chosen at run time.
import contextlib
import functools

import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    use_amp = device.type in ("cuda", "cpu")
    make_ctx = functools.partial(torch.autocast, device_type=device.type) if use_amp else contextlib.nullcontext
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with make_ctx():
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
