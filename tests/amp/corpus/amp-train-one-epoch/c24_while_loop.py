# expect: pass
# A while loop that stops when the loader is exhausted.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    it = iter(loader)
    total, n = 0.0, 0
    while True:
        try:
            inputs, targets = next(it)
        except StopIteration:
            break
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs.to(device)), targets.to(device))
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
        n += 1
    return total / n
