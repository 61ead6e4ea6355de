import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    amp_dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
    losses = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast(device.type, dtype=amp_dtype):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
    return sum(losses) / len(losses)
