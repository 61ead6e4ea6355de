# expect: pass
# The lesson's spelling: torch.autocast(device_type=device.type) with a per-device dtype.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=dtype):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
