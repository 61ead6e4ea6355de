# expect: pass
# torch.amp.autocast("cuda") written for a GPU, float16 by default.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    running = 0.0
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        optimizer.zero_grad()
        with torch.amp.autocast("cuda"):
            logits = model(x)
            loss = criterion(logits, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        running += loss.item()
    return running / len(loader)
