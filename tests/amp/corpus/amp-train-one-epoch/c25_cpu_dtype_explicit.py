# expect: pass
# float16 requested for CUDA through the generic class, bfloat16 otherwise, chosen inline.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        amp = torch.amp.autocast(device.type, dtype=torch.float16 if device.type == "cuda" else torch.bfloat16)
        with amp:
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
